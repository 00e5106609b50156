"""Pattern rewriting: the pattern API, the rewriter, folding and the greedy
fixed-point driver."""
from .driver import GreedyDriver, apply_patterns_greedily
from .fold import constant_value, register_materializer
from .pattern import FunctionPattern, PatternSet, RewritePattern, pattern
from .rewriter import Listener, PatternRewriter

__all__ = ["GreedyDriver", "apply_patterns_greedily", "constant_value", "register_materializer",
           "FunctionPattern", "PatternSet", "RewritePattern", "pattern", "Listener", "PatternRewriter"]
