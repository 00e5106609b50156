// RUN: tilec opt %s --split-input-file --verify-diagnostics
// The arith ops the lowered combiners and conditions use, scf.while / scf.condition,
// and nv_tileas.reduce's identities: MLIR's diagnostics (arith, scf) and tilec's (identities).

%a = arith.constant 1 : i32
// expected-error@+1 {{expected string or keyword containing one of the following enum values for attribute 'predicate' [eq, ne, slt, sle, sgt, sge, ult, ule, ugt, uge]}}
%r = arith.cmpi foo, %a, %a : i32

// -----

%x = arith.constant 1.0 : f32
// expected-error@+1 {{expected string or keyword containing one of the following enum values for attribute 'predicate' [false, oeq, ogt, oge, olt, ole, one, ord, ueq, ugt, uge, ult, ule, une, uno, true]}}
%r = arith.cmpf slt, %x, %x : f32

// -----

%a = arith.constant 1 : i32
%b = arith.constant 1 : i64
// expected-error@+1 {{'arith.cmpi' op requires all operands to have the same type}}
%r = "arith.cmpi"(%a, %b) <{predicate = 0 : i64}> : (i32, i64) -> i1

// -----

%a = arith.constant 1 : i32
// expected-error@+1 {{'arith.cmpi' op attribute 'predicate' failed to satisfy constraint: allowed 64-bit signless integer cases: 0, 1, 2, 3, 4, 5, 6, 7, 8, 9}}
%r = "arith.cmpi"(%a, %a) <{predicate = 10 : i64}> : (i32, i32) -> i1

// -----

%t = arith.constant dense<0> : tensor<42xi32>
// expected-error@+1 {{'arith.cmpi' op failed to verify that result type has i1 element type and same shape as operands}}
%r = "arith.cmpi"(%t, %t) <{predicate = 0 : i64}> : (tensor<42xi32>, tensor<42xi32>) -> tensor<41xi1>

// -----

%a = arith.constant 1 : i32
// expected-error@+1 {{'arith.addf' op operand #0 must be floating-point-like, but got 'i32'}}
%r = "arith.addf"(%a, %a) : (i32, i32) -> i32

// -----

%x = arith.constant 1.0 : f32
%y = arith.constant 1.0 : f64
// expected-error@+1 {{'arith.maximumf' op requires the same type for all operands and results}}
%r = "arith.maximumf"(%x, %y) : (f32, f64) -> f32

// -----

%x = arith.constant 1.0 : f32
// expected-error@+1 {{'arith.minsi' op operand #0 must be signless-integer-like, but got 'f32'}}
%r = "arith.minsi"(%x, %x) : (f32, f32) -> f32

// -----

%x = arith.constant 1.0 : f32
// expected-error@+1 {{'arith.cmpf' op operand #0 must be floating-point-like, but got 'i1'}}
%r = "arith.cmpf"(%c, %c) <{predicate = 1 : i64}> : (i1, i1) -> i1
%c = arith.constant true

// -----

%true = arith.constant true
// expected-error@+1 {{expected as many input types as operands (expected 0 got 1)}}
scf.while : (i32) -> () {
  scf.condition(%true)
} do {
  scf.yield
}

// -----

// expected-error@+1 {{'scf.while' op expects the 'before' region to terminate with 'scf.condition'}}
scf.while : () -> () {
  // expected-note@+1 {{terminator here}}
  scf.yield
} do {
  scf.yield
}

// -----

%true = arith.constant true
// expected-error@+1 {{'scf.while' op expects the 'after' region to terminate with 'scf.yield'}}
scf.while : () -> () {
  scf.condition(%true)
} do {
  // expected-note@+1 {{terminator here}}
  scf.condition(%true)
}

// -----

// expected-error@+1 {{'scf.while' op region #0 ('before') failed to verify constraint: region with 1 blocks}}
scf.while : () -> () {
} do {
}

// -----

%true = arith.constant true
// expected-error@+1 {{'scf.while' op  region control flow edge from Region #0 to Region #1: source has 0 operands, but target successor needs 1}}
scf.while : () -> () {
  scf.condition(%true)
} do {
^bb0(%arg0: i32):
  scf.yield
}

// -----

%true = arith.constant true
// expected-error@+1 {{'scf.while' op  along control flow edge from Region #0 to Region #1: source type #0 'i1' should match input type #0 'i32'}}
%0 = scf.while : () -> (i1) {
  scf.condition(%true) %true : i1
} do {
^bb0(%arg0: i32):
  scf.yield
}

// -----

%true = arith.constant true
// expected-error@+1 {{'scf.while' op  region control flow edge from Region #0 to parent results: source has 1 operands, but target successor needs 0}}
scf.while : () -> () {
  scf.condition(%true) %true : i1
} do {
^bb0(%arg0: i1):
  scf.yield
}

// -----

%c0 = arith.constant 0 : i32
%true = arith.constant true
// expected-error@+1 {{'scf.while' op  along control flow edge from Region #1 to Region #0: source type #0 'i1' should match input type #0 'i32'}}
%0 = scf.while (%a = %c0) : (i32) -> i32 {
  scf.condition(%true) %a : i32
} do {
^bb0(%b: i32):
  scf.yield %true : i1
}

// -----

%x = arith.constant 1.0 : f32
scf.while : () -> () {
  // expected-error@+2 {{use of value '%x' expects different type than prior uses: 'i1' vs 'f32'}}
  // expected-note@-3 {{prior use here}}
  scf.condition(%x)
} do {
  scf.yield
}

// -----

%c = cuda_tile.constant <i1: true> : tile<i1>
%true = arith.constant true
cuda_tile.if %c {
  // expected-error@+1 {{'scf.condition' op expects parent op 'scf.while'}}
  scf.condition(%true)
}

// -----

%acc = nv_tileas.create_none : tile<64x64xf32>
// expected-error@+1 {{'nv_tileas.reduce' op expects one identity per operand, of its element type}}
%red = "nv_tileas.reduce"(%acc) <{dim = 1 : i64, identities = [0 : i32]}> ({
^bb0(%l: f32, %r: f32):
  "nv_tileas.yield"(%l) : (f32) -> ()
}) : (tile<64x64xf32>) -> tile<64xf32>
