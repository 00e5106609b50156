"""cuda_tile op declarations, one module per op family (spec chapter 8)."""
import importlib
import pkgutil


def load():
    for mod in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{mod.name}")


load()
