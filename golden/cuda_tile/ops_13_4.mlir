// RUN: tilec opt %s --split-input-file --verify-diagnostics
// The ops, type and pointer classification of bytecode 13.4/13.5: insert, fpowi, gdc_*,
// memory_fence_alias_tko, multimem_*, fnv8E5M3FNU, #cuda_tile.ptr_attr. Every error text here
// is the one NVIDIA's tileirdisasm 13.5 reports for the same IR (tests/test_ops_13_4.py checks
// that when the reference toolchain is installed).

// insert: source and destination ranks differ
cuda_tile.module @insert_rank {
  entry @k() {
    %a4 = constant <f32: 1.0> : tile<4xf32>
    %a8 = constant <f32: 1.0> : tile<8xf32>
    %i = constant <i32: 1> : tile<i32>
    %d = constant <f32: 1.0> : tile<2x4xf32>
    // expected-error @below {{'cuda_tile.insert' op source and result must have the same rank}}
    %r = insert %a4, %d[%i, %i] : tile<4xf32>, tile<2x4xf32>
    return
  }
}

// -----

// insert: element types differ
cuda_tile.module @insert_elt {
  entry @k() {
    %a4 = constant <f32: 1.0> : tile<4xf32>
    %a8 = constant <f32: 1.0> : tile<8xf32>
    %i = constant <i32: 1> : tile<i32>
    %h = constant <f16: 1.0> : tile<4xf16>
    // expected-error @below {{'cuda_tile.insert' op source and result element type do not match}}
    %r = insert %h, %a8[%i] : tile<4xf16>, tile<8xf32>
    return
  }
}

// -----

// insert: the source must tile the destination
cuda_tile.module @insert_divisible {
  entry @k() {
    %a4 = constant <f32: 1.0> : tile<4xf32>
    %a8 = constant <f32: 1.0> : tile<8xf32>
    %i = constant <i32: 1> : tile<i32>
    // expected-error @below {{'cuda_tile.insert' op result dimension 0 size (4) must be evenly divisible by source dimension 0 size (8)}}
    %r = insert %a8, %a4[%i] : tile<8xf32>, tile<4xf32>
    return
  }
}

// -----

// insert: one index per dimension
cuda_tile.module @insert_count {
  entry @k() {
    %a4 = constant <f32: 1.0> : tile<4xf32>
    %a8 = constant <f32: 1.0> : tile<8xf32>
    %i = constant <i32: 1> : tile<i32>
    // expected-error @below {{'cuda_tile.insert' op expected 1 indices, but got 2}}
    %r = insert %a4, %a8[%i, %i] : tile<4xf32>, tile<8xf32>
    return
  }
}

// -----

// insert: the result is the destination's type
cuda_tile.module @insert_result {
  entry @k() {
    %a4 = constant <f32: 1.0> : tile<4xf32>
    %a8 = constant <f32: 1.0> : tile<8xf32>
    %i = constant <i32: 1> : tile<i32>
    // expected-error @below {{'cuda_tile.insert' op failed to verify that all of {destination, result} have same type}}
    %r = "cuda_tile.insert"(%a4, %a8, %i) : (!cuda_tile.tile<4xf32>, !cuda_tile.tile<8xf32>, !cuda_tile.tile<i32>) -> !cuda_tile.tile<16xf32>
    return
  }
}

// -----

// insert: indices are i32 scalars
cuda_tile.module @insert_index_type {
  entry @k() {
    %a4 = constant <f32: 1.0> : tile<4xf32>
    %a8 = constant <f32: 1.0> : tile<8xf32>
    %i = constant <i32: 1> : tile<i32>
    %l = constant <i64: 1> : tile<i64>
    // expected-error @below {{'cuda_tile.insert' op operand #2 must be variadic of 0D tile of i32 values, but got '!cuda_tile.tile<i64>'}}
    %r = "cuda_tile.insert"(%a4, %a8, %l) : (!cuda_tile.tile<4xf32>, !cuda_tile.tile<8xf32>, !cuda_tile.tile<i64>) -> !cuda_tile.tile<8xf32>
    return
  }
}

// -----

// insert: a constant index past the last slice is undefined behaviour (a warning)
cuda_tile.module @insert_oob {
  entry @k() {
    %a4 = constant <f32: 1.0> : tile<4xf32>
    %a8 = constant <f32: 1.0> : tile<8xf32>
    %i = constant <i32: 1> : tile<i32>
    %big = constant <i32: 5> : tile<i32>
    // expected-warning @below {{insert index 0 value 5 may be out of bounds (max valid index: 1)}}
    %r = insert %a4, %a8[%big] : tile<4xf32>, tile<8xf32>
    return
  }
}

// -----

// insert: a negative constant index (a warning)
cuda_tile.module @insert_negative {
  entry @k() {
    %a4 = constant <f32: 1.0> : tile<4xf32>
    %a8 = constant <f32: 1.0> : tile<8xf32>
    %i = constant <i32: 1> : tile<i32>
    %neg = constant <i32: -1> : tile<i32>
    // expected-warning @below {{insert index 0 has negative value -1, which may cause undefined behavior}}
    %r = insert %a4, %a8[%neg] : tile<4xf32>, tile<8xf32>
    return
  }
}

// -----

// fpowi: the base is a float tile
cuda_tile.module @fpowi_source {
  entry @k() {
    %n = constant <i32: 1> : tile<4xi32>
    // expected-error @below {{'cuda_tile.fpowi' op operand #0 must be tile of f16 or bf16 or f32 or f64 values, but got '!cuda_tile.tile<4xi32>'}}
    %r = fpowi %n, %n : tile<4xi32>, tile<4xi32>
    return
  }
}

// -----

// fpowi: the exponent is an integer tile of at most 32 bits
cuda_tile.module @fpowi_exponent {
  entry @k() {
    %a = constant <f32: 1.0> : tile<4xf32>
    %n = constant <i64: 1> : tile<4xi64>
    // expected-error @below {{'cuda_tile.fpowi' op operand #1 must be tile of i1 or i8 or i16 or i32 values, but got '!cuda_tile.tile<4xi64>'}}
    %r = fpowi %a, %n : tile<4xf32>, tile<4xi64>
    return
  }
}

// -----

// fpowi: base and exponent have one shape
cuda_tile.module @fpowi_shape {
  entry @k() {
    %a = constant <f32: 1.0> : tile<4xf32>
    %n = constant <i32: 1> : tile<8xi32>
    // expected-error @below {{'cuda_tile.fpowi' op failed to verify that all of {source, exponent} have same shape}}
    %r = fpowi %a, %n : tile<4xf32>, tile<8xi32>
    return
  }
}

// -----

// fpowi: the result is the base's type
cuda_tile.module @fpowi_result {
  entry @k() {
    %a = constant <f32: 1.0> : tile<4xf32>
    %n = constant <i32: 1> : tile<4xi32>
    // expected-error @below {{'cuda_tile.fpowi' op failed to verify that all of {result, source} have same type}}
    %r = "cuda_tile.fpowi"(%a, %n) : (!cuda_tile.tile<4xf32>, !cuda_tile.tile<4xi32>) -> !cuda_tile.tile<4xf16>
    return
  }
}

// -----

// gdc_wait_tko: the result is a token
cuda_tile.module @gdc_result {
  entry @k() {
    // expected-error @below {{'cuda_tile.gdc_wait_tko' op result #0 must be cuda tile token type, but got '!cuda_tile.tile<i32>'}}
    %r = "cuda_tile.gdc_wait_tko"() : () -> !cuda_tile.tile<i32>
    return
  }
}

// -----

// memory_fence_alias_tko: the operand is a token
cuda_tile.module @fence_operand {
  entry @k() {
    %i = constant <i32: 0> : tile<i32>
    // expected-error @below {{'cuda_tile.memory_fence_alias_tko' op operand #0 must be cuda tile token type, but got '!cuda_tile.tile<i32>'}}
    %r = "cuda_tile.memory_fence_alias_tko"(%i) : (!cuda_tile.tile<i32>) -> !cuda_tile.token
    return
  }
}

// -----

// ftof to fnv8E5M3FNU rounds to nearest even only (NVIDIA's 13.5 wording)
cuda_tile.module @ftof_fnv8_rounding {
  entry @k() {
    %a = constant <f32: 1.0> : tile<4xf32>
    // expected-error @below {{'cuda_tile.ftof' op invalid rounding mode specified for conversion to low-precision type. Only 'nearest_even' is supported}}
    %r = ftof %a rounding<zero> : tile<4xf32> -> tile<4xfnv8E5M3FNU>
    return
  }
}

// -----

// fnv8E5M3FNU is a storage type: no arithmetic
cuda_tile.module @fnv8_arith {
  entry @k() {
    %c = constant <fnv8E5M3FNU: 1.0> : tile<4xfnv8E5M3FNU>
    // expected-error @below {{'cuda_tile.addf' op operand #0 must be tile of f16 or bf16 or f32 or f64 values, but got '!cuda_tile.tile<4xfnv8E5M3FNU>'}}
    %r = addf %c, %c : tile<4xfnv8E5M3FNU>
    return
  }
}

// -----

// mmaf_scaled: fnv8E5M3FNU scales go with f4E2M1FN operands
cuda_tile.module @mmaf_scaled_fnv8 {
  entry @k() {
    %a = constant <f8E5M2: 1.0> : tile<32x64xf8E5M2>
    %b = constant <f8E5M2: 1.0> : tile<64x32xf8E5M2>
    %c = constant <f32: 0.0> : tile<32x32xf32>
    %sa = constant <fnv8E5M3FNU: 1.0> : tile<32x2xfnv8E5M3FNU>
    %sb = constant <fnv8E5M3FNU: 1.0> : tile<2x32xfnv8E5M3FNU>
    // expected-error @below {{'cuda_tile.mmaf_scaled' op unsupported combination of element types. Scale type 'fnv8E5M3FNU' expects lhs and rhs element types to be 'f4E2M1FN', but got 'f8E5M2'}}
    %r = mmaf_scaled %a, %b, %c, %sa, %sb : tile<32x64xf8E5M2>, tile<64x32xf8E5M2>, tile<32x32xf32>, tile<32x2xfnv8E5M3FNU>, tile<2x32xfnv8E5M3FNU>
    return
  }
}

// -----

// mmaf_scaled: fnv8E5M3FNU scales cover 16 or 32 elements
cuda_tile.module @mmaf_scaled_fnv8_block {
  entry @k() {
    %a = constant <f4E2M1FN: 1.0> : tile<32x64xf4E2M1FN>
    %b = constant <f4E2M1FN: 1.0> : tile<64x32xf4E2M1FN>
    %c = constant <f32: 0.0> : tile<32x32xf32>
    %sa = constant <fnv8E5M3FNU: 1.0> : tile<32x1xfnv8E5M3FNU>
    %sb = constant <fnv8E5M3FNU: 1.0> : tile<1x32xfnv8E5M3FNU>
    // expected-error @below {{'cuda_tile.mmaf_scaled' op shape error: f4E2M1FN element type with fnv8E5M3FNU scales requires block scale factor of lhs_scale and rhs_scale to be 16 or 32, but got 64}}
    %r = mmaf_scaled %a, %b, %c, %sa, %sb : tile<32x64xf4E2M1FN>, tile<64x32xf4E2M1FN>, tile<32x32xf32>, tile<32x1xfnv8E5M3FNU>, tile<1x32xfnv8E5M3FNU>
    return
  }
}

// -----

// make_tensor_view keeps the base pointer's ptr_attr
cuda_tile.module @tv_keeps_ptr_attr {
  entry @k(%p: tile<ptr<f32, <multicast>>>) {
    // expected-error @below {{'cuda_tile.make_tensor_view' op tensor_view must preserve ptr_attr from base pointer (#cuda_tile.ptr_attr<multicast>)}}
    %tv = make_tensor_view %p, shape = [8], strides = [1] : tile<ptr<f32, <multicast>>> -> tensor_view<8xf32, strides=[1]>
    return
  }
}

// -----

// make_tensor_view cannot add a ptr_attr
cuda_tile.module @tv_adds_ptr_attr {
  entry @k(%p: tile<ptr<f32>>) {
    // expected-error @below {{'cuda_tile.make_tensor_view' op pointer base without ptr_attr cannot produce tensor_view with ptr_attr}}
    %tv = "cuda_tile.make_tensor_view"(%p) <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (!cuda_tile.tile<ptr<f32>>) -> !cuda_tile.tensor_view<8xf32, strides=[1], #cuda_tile.ptr_attr<unicast>>
    return
  }
}

// -----

// make_tensor_view cannot change a ptr_attr
cuda_tile.module @tv_changes_ptr_attr {
  entry @k(%p: tile<ptr<f32, <multicast>>>) {
    // expected-error @below {{'cuda_tile.make_tensor_view' op ptr_attr mismatch between base pointer (#cuda_tile.ptr_attr<multicast>) and result tensor_view (#cuda_tile.ptr_attr<unicast>)}}
    %tv = make_tensor_view %p, shape = [8], strides = [1] : tile<ptr<f32, <multicast>>> -> tensor_view<8xf32, strides=[1], #cuda_tile.ptr_attr<unicast>>
    return
  }
}

// -----

// plain view loads cannot read a multicast object
cuda_tile.module @load_view_multicast {
  entry @k(%p: tile<ptr<f32, <multicast>>>) {
    %i = constant <i32: 0> : tile<i32>
    %tv = make_tensor_view %p, shape = [64, 64], strides = [64, 1] : tile<ptr<f32, <multicast>>> -> tensor_view<64x64xf32, strides=[64,1], #cuda_tile.ptr_attr<multicast>>
    %pv = make_partition_view %tv : partition_view<tile=(2x4), tensor_view<64x64xf32, strides=[64,1], #cuda_tile.ptr_attr<multicast>>>
    %x = constant <f32: 1.0> : tile<2x4xf32>
    // expected-error @below {{'cuda_tile.load_view_tko' op multicast ptr_attr is not allowed}}
    %r, %t = load_view_tko weak %pv[%i, %i] : partition_view<tile=(2x4), tensor_view<64x64xf32, strides=[64,1], #cuda_tile.ptr_attr<multicast>>>, tile<i32> -> tile<2x4xf32>, token
    return
  }
}

// -----

// plain view stores cannot write a multicast object
cuda_tile.module @store_view_multicast {
  entry @k(%p: tile<ptr<f32, <multicast>>>) {
    %i = constant <i32: 0> : tile<i32>
    %tv = make_tensor_view %p, shape = [64, 64], strides = [64, 1] : tile<ptr<f32, <multicast>>> -> tensor_view<64x64xf32, strides=[64,1], #cuda_tile.ptr_attr<multicast>>
    %pv = make_partition_view %tv : partition_view<tile=(2x4), tensor_view<64x64xf32, strides=[64,1], #cuda_tile.ptr_attr<multicast>>>
    %x = constant <f32: 1.0> : tile<2x4xf32>
    // expected-error @below {{'cuda_tile.store_view_tko' op multicast ptr_attr is not allowed}}
    %t = store_view_tko weak %x, %pv[%i, %i] : tile<2x4xf32>, partition_view<tile=(2x4), tensor_view<64x64xf32, strides=[64,1], #cuda_tile.ptr_attr<multicast>>>, tile<i32> -> token
    return
  }
}

// -----

// view atomics cannot reach a multicast object
cuda_tile.module @atomic_red_multicast {
  entry @k(%p: tile<ptr<f32, <multicast>>>) {
    %i = constant <i32: 0> : tile<i32>
    %tv = make_tensor_view %p, shape = [64, 64], strides = [64, 1] : tile<ptr<f32, <multicast>>> -> tensor_view<64x64xf32, strides=[64,1], #cuda_tile.ptr_attr<multicast>>
    %pv = make_partition_view %tv : partition_view<tile=(2x4), tensor_view<64x64xf32, strides=[64,1], #cuda_tile.ptr_attr<multicast>>>
    %x = constant <f32: 1.0> : tile<2x4xf32>
    // expected-error @below {{'cuda_tile.atomic_red_view_tko' op multicast ptr_attr is not allowed}}
    %t = atomic_red_view_tko relaxed device %pv[%i, %i], addf, %x : tile<2x4xf32>, partition_view<tile=(2x4), tensor_view<64x64xf32, strides=[64,1], #cuda_tile.ptr_attr<multicast>>>, tile<i32> -> token
    return
  }
}

// -----

// pointer loads cannot read a multicast object
cuda_tile.module @load_ptr_multicast {
  entry @k(%p: tile<ptr<f32, <multicast>>>) {
    // expected-error @below {{'cuda_tile.load_ptr_tko' op multicast pointer is not allowed}}
    %r, %t = load_ptr_tko weak %p : tile<ptr<f32, <multicast>>> -> tile<f32>, token
    return
  }
}

// -----

// pointer stores cannot write a multicast object
cuda_tile.module @store_ptr_multicast {
  entry @k(%p: tile<ptr<f32, <multicast>>>) {
    %s = constant <f32: 1.0> : tile<f32>
    // expected-error @below {{'cuda_tile.store_ptr_tko' op multicast pointer is not allowed}}
    %t = store_ptr_tko weak %p, %s : tile<ptr<f32, <multicast>>>, tile<f32> -> token
    return
  }
}

// -----

// atomic_rmw_tko on a multicast pointer
cuda_tile.module @rmw_multicast {
  entry @k(%p: tile<ptr<i32, <multicast>>>) {
    %s = constant <i32: 1> : tile<i32>
    // expected-error @below {{'cuda_tile.atomic_rmw_tko' op multicast pointer is not supported for atomic_rmw}}
    %r, %t = atomic_rmw_tko relaxed device %p, add, %s : tile<ptr<i32, <multicast>>>, tile<i32> -> tile<i32>, token
    return
  }
}

// -----

// atomic_cas_tko on a multicast pointer
cuda_tile.module @cas_multicast {
  entry @k(%p: tile<ptr<i32, <multicast>>>) {
    %s = constant <i32: 1> : tile<i32>
    // expected-error @below {{'cuda_tile.atomic_cas_tko' op multicast pointer is not supported for atomic_cas}}
    %r, %t = atomic_cas_tko relaxed device %p, %s, %s : tile<ptr<i32, <multicast>>>, tile<i32> -> tile<i32>, token
    return
  }
}

// -----

// multimem ops need a multicast pointer
cuda_tile.module @mm_unicast {
  entry @k(%p: tile<ptr<f32, <unicast>>>) {
    %i = constant <i32: 0> : tile<i32>
    %tv = make_tensor_view %p, shape = [64, 64], strides = [64, 1] : tile<ptr<f32, <unicast>>> -> tensor_view<64x64xf32, strides=[64,1], #cuda_tile.ptr_attr<unicast>>
    %pv = make_partition_view %tv : partition_view<tile=(2x4), tensor_view<64x64xf32, strides=[64,1], #cuda_tile.ptr_attr<unicast>>>
    %x = constant <f32: 1.0> : tile<2x4xf32>
    // expected-error @below {{'cuda_tile.multimem_load_reduce_view_tko' op expected a multicast pointer, but got unicast}}
    %r, %t = multimem_load_reduce_view_tko relaxed device %pv[%i, %i] : partition_view<tile=(2x4), tensor_view<64x64xf32, strides=[64,1], #cuda_tile.ptr_attr<unicast>>>, tile<i32> -> tile<2x4xf32>, token
    return
  }
}

// -----

// a pointer without ptr_attr is not multicast
cuda_tile.module @mm_no_attr {
  entry @k(%p: tile<ptr<f32>>) {
    %i = constant <i32: 0> : tile<i32>
    %tv = make_tensor_view %p, shape = [64, 64], strides = [64, 1] : tensor_view<64x64xf32, strides=[64,1]>
    %pv = make_partition_view %tv : partition_view<tile=(2x4), tensor_view<64x64xf32, strides=[64,1]>>
    %x = constant <f32: 1.0> : tile<2x4xf32>
    // expected-error @below {{'cuda_tile.multimem_store_view_tko' op expected a multicast pointer, but got none}}
    %t = multimem_store_view_tko relaxed device %pv, %x[%i, %i] : partition_view<tile=(2x4), tensor_view<64x64xf32, strides=[64,1]>>, tile<2x4xf32>, tile<i32> -> token
    return
  }
}

// -----

// multimem integers are 32 or 64 bits wide
cuda_tile.module @mm_i16 {
  entry @k(%p: tile<ptr<i16, <multicast>>>) {
    %i = constant <i32: 0> : tile<i32>
    %tv = make_tensor_view %p, shape = [64, 64], strides = [64, 1] : tile<ptr<i16, <multicast>>> -> tensor_view<64x64xi16, strides=[64,1], #cuda_tile.ptr_attr<multicast>>
    %pv = make_partition_view %tv : partition_view<tile=(2x4), tensor_view<64x64xi16, strides=[64,1], #cuda_tile.ptr_attr<multicast>>>
    %x = constant <i16: 1> : tile<2x4xi16>
    // expected-error @below {{'cuda_tile.multimem_reduce_view_tko' op multimem requires 32- or 64-bit integer/index element types; got 16 bits}}
    %t = multimem_reduce_view_tko relaxed device %pv, %x[%i, %i] : partition_view<tile=(2x4), tensor_view<64x64xi16, strides=[64,1], #cuda_tile.ptr_attr<multicast>>>, tile<2x4xi16>, tile<i32> -> token
    return
  }
}

// -----

// multimem floats are f16, bf16, f32 or f64
cuda_tile.module @mm_f8 {
  entry @k(%p: tile<ptr<f8E4M3FN, <multicast>>>) {
    %i = constant <i32: 0> : tile<i32>
    %tv = make_tensor_view %p, shape = [64, 64], strides = [64, 1] : tile<ptr<f8E4M3FN, <multicast>>> -> tensor_view<64x64xf8E4M3FN, strides=[64,1], #cuda_tile.ptr_attr<multicast>>
    %pv = make_partition_view %tv : partition_view<tile=(2x4), tensor_view<64x64xf8E4M3FN, strides=[64,1], #cuda_tile.ptr_attr<multicast>>>
    %x = constant <f8E4M3FN: 1.0> : tile<2x4xf8E4M3FN>
    // expected-error @below {{'cuda_tile.multimem_store_view_tko' op multimem supports only f16, bf16, f32, and f64 floating-point element types}}
    %t = multimem_store_view_tko relaxed device %pv, %x[%i, %i] : partition_view<tile=(2x4), tensor_view<64x64xf8E4M3FN, strides=[64,1], #cuda_tile.ptr_attr<multicast>>>, tile<2x4xf8E4M3FN>, tile<i32> -> token
    return
  }
}

// -----

// f16/bf16 multimem views need one unit stride
cuda_tile.module @mm_f16_stride {
  entry @k(%p: tile<ptr<f16, <multicast>>>) {
    %i = constant <i32: 0> : tile<i32>
    %tv = make_tensor_view %p, shape = [64, 64], strides = [64, 2] : tile<ptr<f16, <multicast>>> -> tensor_view<64x64xf16, strides=[64,2], #cuda_tile.ptr_attr<multicast>>
    %pv = make_partition_view %tv : partition_view<tile=(2x4), tensor_view<64x64xf16, strides=[64,2], #cuda_tile.ptr_attr<multicast>>>
    %x = constant <f16: 1.0> : tile<2x4xf16>
    // expected-error @below {{'cuda_tile.multimem_load_reduce_view_tko' op f16/bf16 multimem views must have exactly one element stride statically known to equal 1; got 0}}
    %r, %t = multimem_load_reduce_view_tko relaxed device %pv[%i, %i] : partition_view<tile=(2x4), tensor_view<64x64xf16, strides=[64,2], #cuda_tile.ptr_attr<multicast>>>, tile<i32> -> tile<2x4xf16>, token
    return
  }
}

// -----

// one index per view dimension (checked first)
cuda_tile.module @mm_index_count {
  entry @k(%p: tile<ptr<f32, <unicast>>>) {
    %i = constant <i32: 0> : tile<i32>
    %tv = make_tensor_view %p, shape = [64, 64], strides = [64, 1] : tile<ptr<f32, <unicast>>> -> tensor_view<64x64xf32, strides=[64,1], #cuda_tile.ptr_attr<unicast>>
    %pv = make_partition_view %tv : partition_view<tile=(2x4), tensor_view<64x64xf32, strides=[64,1], #cuda_tile.ptr_attr<unicast>>>
    %x = constant <f32: 1.0> : tile<2x4xf32>
    // expected-error @below {{'cuda_tile.multimem_load_reduce_view_tko' op expected 2 index operands (based on view type), got 1}}
    %r, %t = multimem_load_reduce_view_tko relaxed device %pv[%i] : partition_view<tile=(2x4), tensor_view<64x64xf32, strides=[64,1], #cuda_tile.ptr_attr<unicast>>>, tile<i32> -> tile<2x4xf32>, token
    return
  }
}

// -----

// and/or/xor/umin/umax need integers
cuda_tile.module @mm_int_kind_on_float {
  entry @k(%p: tile<ptr<f32, <multicast>>>) {
    %i = constant <i32: 0> : tile<i32>
    %tv = make_tensor_view %p, shape = [64, 64], strides = [64, 1] : tile<ptr<f32, <multicast>>> -> tensor_view<64x64xf32, strides=[64,1], #cuda_tile.ptr_attr<multicast>>
    %pv = make_partition_view %tv : partition_view<tile=(2x4), tensor_view<64x64xf32, strides=[64,1], #cuda_tile.ptr_attr<multicast>>>
    %x = constant <f32: 1.0> : tile<2x4xf32>
    // expected-error @below {{'cuda_tile.multimem_reduce_view_tko' op and/or/xor/umin/umax reductions require integer element types}}
    %t = multimem_reduce_view_tko relaxed device %pv, %x[%i, %i] attributes {reduction = #cuda_tile.multimem_reduction_kind<and>} : partition_view<tile=(2x4), tensor_view<64x64xf32, strides=[64,1], #cuda_tile.ptr_attr<multicast>>>, tile<2x4xf32>, tile<i32> -> token
    return
  }
}

// -----

// a multimem reduction of floats is an add
cuda_tile.module @mm_reduce_float_add {
  entry @k(%p: tile<ptr<f16, <multicast>>>) {
    %i = constant <i32: 0> : tile<i32>
    %tv = make_tensor_view %p, shape = [64, 64], strides = [64, 1] : tile<ptr<f16, <multicast>>> -> tensor_view<64x64xf16, strides=[64,1], #cuda_tile.ptr_attr<multicast>>
    %pv = make_partition_view %tv : partition_view<tile=(2x4), tensor_view<64x64xf16, strides=[64,1], #cuda_tile.ptr_attr<multicast>>>
    %x = constant <f16: 1.0> : tile<2x4xf16>
    // expected-error @below {{'cuda_tile.multimem_reduce_view_tko' op supports only add for floating-point element types}}
    %t = multimem_reduce_view_tko relaxed device %pv, %x[%i, %i] attributes {reduction = #cuda_tile.multimem_reduction_kind<max>} : partition_view<tile=(2x4), tensor_view<64x64xf16, strides=[64,1], #cuda_tile.ptr_attr<multicast>>>, tile<2x4xf16>, tile<i32> -> token
    return
  }
}

// -----

// a load-reduce takes min/max on 16-bit floats only
cuda_tile.module @mm_minmax_f32 {
  entry @k(%p: tile<ptr<f32, <multicast>>>) {
    %i = constant <i32: 0> : tile<i32>
    %tv = make_tensor_view %p, shape = [64, 64], strides = [64, 1] : tile<ptr<f32, <multicast>>> -> tensor_view<64x64xf32, strides=[64,1], #cuda_tile.ptr_attr<multicast>>
    %pv = make_partition_view %tv : partition_view<tile=(2x4), tensor_view<64x64xf32, strides=[64,1], #cuda_tile.ptr_attr<multicast>>>
    %x = constant <f32: 1.0> : tile<2x4xf32>
    // expected-error @below {{'cuda_tile.multimem_load_reduce_view_tko' op min/max supports f16 and bf16 float types only; got 'f32'}}
    %r, %t = multimem_load_reduce_view_tko relaxed device %pv[%i, %i] attributes {reduction = #cuda_tile.multimem_reduction_kind<min>} : partition_view<tile=(2x4), tensor_view<64x64xf32, strides=[64,1], #cuda_tile.ptr_attr<multicast>>>, tile<i32> -> tile<2x4xf32>, token
    return
  }
}

// -----

// one inbounds flag per index
cuda_tile.module @mm_inbounds_size {
  entry @k(%p: tile<ptr<f32, <multicast>>>) {
    %i = constant <i32: 0> : tile<i32>
    %tv = make_tensor_view %p, shape = [64, 64], strides = [64, 1] : tile<ptr<f32, <multicast>>> -> tensor_view<64x64xf32, strides=[64,1], #cuda_tile.ptr_attr<multicast>>
    %pv = make_partition_view %tv : partition_view<tile=(2x4), tensor_view<64x64xf32, strides=[64,1], #cuda_tile.ptr_attr<multicast>>>
    %x = constant <f32: 1.0> : tile<2x4xf32>
    // expected-error @below {{'cuda_tile.multimem_store_view_tko' op inbounds size (1) must match the number of index dimensions (2)}}
    %t = multimem_store_view_tko relaxed device %pv, %x[%i, %i] inbounds = [true] : partition_view<tile=(2x4), tensor_view<64x64xf32, strides=[64,1], #cuda_tile.ptr_attr<multicast>>>, tile<2x4xf32>, tile<i32> -> token
    return
  }
}

// -----

// a load-reduce is weak, relaxed or acquire
cuda_tile.module @mm_load_order {
  entry @k(%p: tile<ptr<f32, <multicast>>>) {
    %i = constant <i32: 0> : tile<i32>
    %tv = make_tensor_view %p, shape = [64, 64], strides = [64, 1] : tile<ptr<f32, <multicast>>> -> tensor_view<64x64xf32, strides=[64,1], #cuda_tile.ptr_attr<multicast>>
    %pv = make_partition_view %tv : partition_view<tile=(2x4), tensor_view<64x64xf32, strides=[64,1], #cuda_tile.ptr_attr<multicast>>>
    %x = constant <f32: 1.0> : tile<2x4xf32>
    // expected-error @below {{'cuda_tile.multimem_load_reduce_view_tko' op expect one of: weak, relaxed, or acquire, but got: release}}
    %r, %t = multimem_load_reduce_view_tko release device %pv[%i, %i] : partition_view<tile=(2x4), tensor_view<64x64xf32, strides=[64,1], #cuda_tile.ptr_attr<multicast>>>, tile<i32> -> tile<2x4xf32>, token
    return
  }
}

// -----

// a multimem reduction is relaxed or release
cuda_tile.module @mm_reduce_order {
  entry @k(%p: tile<ptr<f32, <multicast>>>) {
    %i = constant <i32: 0> : tile<i32>
    %tv = make_tensor_view %p, shape = [64, 64], strides = [64, 1] : tile<ptr<f32, <multicast>>> -> tensor_view<64x64xf32, strides=[64,1], #cuda_tile.ptr_attr<multicast>>
    %pv = make_partition_view %tv : partition_view<tile=(2x4), tensor_view<64x64xf32, strides=[64,1], #cuda_tile.ptr_attr<multicast>>>
    %x = constant <f32: 1.0> : tile<2x4xf32>
    // expected-error @below {{'cuda_tile.multimem_reduce_view_tko' op memory ordering semantics must be one of: relaxed, release}}
    %t = multimem_reduce_view_tko acquire device %pv, %x[%i, %i] : partition_view<tile=(2x4), tensor_view<64x64xf32, strides=[64,1], #cuda_tile.ptr_attr<multicast>>>, tile<2x4xf32>, tile<i32> -> token
    return
  }
}

// -----

// a relaxed store names its scope
cuda_tile.module @mm_store_scope {
  entry @k(%p: tile<ptr<f32, <multicast>>>) {
    %i = constant <i32: 0> : tile<i32>
    %tv = make_tensor_view %p, shape = [64, 64], strides = [64, 1] : tile<ptr<f32, <multicast>>> -> tensor_view<64x64xf32, strides=[64,1], #cuda_tile.ptr_attr<multicast>>
    %pv = make_partition_view %tv : partition_view<tile=(2x4), tensor_view<64x64xf32, strides=[64,1], #cuda_tile.ptr_attr<multicast>>>
    %x = constant <f32: 1.0> : tile<2x4xf32>
    // expected-error @below {{'cuda_tile.multimem_store_view_tko' op memory scope is required for relaxed store}}
    %t = multimem_store_view_tko relaxed %pv, %x[%i, %i] : partition_view<tile=(2x4), tensor_view<64x64xf32, strides=[64,1], #cuda_tile.ptr_attr<multicast>>>, tile<2x4xf32>, tile<i32> -> token
    return
  }
}
