// RUN: tilec opt %s --split-input-file --verify-diagnostics
// Views: make_tensor_view, make_partition_view, make_strided_view,
// make_gather_scatter_view, shape queries, load_view_tko / store_view_tko.

cuda_tile.module @view_tv_pointee {
  testing$func @tv_pointee(%p: tile<ptr<f16>>) {
    // expected-error @below {{'cuda_tile.make_tensor_view' op expected pointer to 'f32' to build tensor_view of this type, got 'f16'}}
    %tv = "cuda_tile.make_tensor_view"(%p) <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (tile<ptr<f16>>) -> tensor_view<64xf32, strides=[1]>
    return
  }
}

// -----

cuda_tile.module @view_tv_dyn_shape {
  testing$func @tv_extra_shape(%p: tile<ptr<f32>>, %n: tile<i32>) {
    // expected-error @below {{'cuda_tile.make_tensor_view' op expected 0 dynamic shape operands, got 1}}
    %tv = "cuda_tile.make_tensor_view"(%p, %n) <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (tile<ptr<f32>>, tile<i32>) -> tensor_view<64xf32, strides=[1]>
    return
  }
}

// -----

cuda_tile.module @view_tv_dyn_stride {
  testing$func @tv_missing_stride(%p: tile<ptr<f32>>, %n: tile<i32>) {
    // expected-error @below {{'cuda_tile.make_tensor_view' op expected 1 dynamic stride operands, got 0}}
    %tv = "cuda_tile.make_tensor_view"(%p, %n) <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (tile<ptr<f32>>, tile<i32>) -> tensor_view<?x64xf32, strides=[?,1]>
    return
  }
}

// -----

cuda_tile.module @view_tv_dyn_types {
  testing$func @tv_mixed_dynamic(%p: tile<ptr<f32>>, %n: tile<i32>, %s: tile<i64>) {
    // expected-error @below {{'cuda_tile.make_tensor_view' op expected dynamic stride index 0 to be of the same type as the other dynamic values ('!cuda_tile.tile<i32>'), got '!cuda_tile.tile<i64>'}}
    %tv = "cuda_tile.make_tensor_view"(%p, %n, %s) <{operandSegmentSizes = array<i32: 1, 1, 1>}> : (tile<ptr<f32>>, tile<i32>, tile<i64>) -> tensor_view<?x64xf32, strides=[?,1]>
    return
  }
}

// -----

cuda_tile.module @view_tv_base {
  testing$func @tv_vector_base(%p: tile<4xptr<f32>>) {
    // expected-error @below {{'cuda_tile.make_tensor_view' op operand #0 must be 0D tile of Pointer type values, but got '!cuda_tile.tile<4xptr<f32>>'}}
    %tv = "cuda_tile.make_tensor_view"(%p) <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (tile<4xptr<f32>>) -> tensor_view<64xf32, strides=[1]>
    return
  }
}

// -----

cuda_tile.module @view_pv_tv {
  testing$func @pv_other_tv(%tv: tensor_view<64xf32, strides=[1]>) {
    // expected-error @below {{'cuda_tile.make_partition_view' op expected the type of the provided tensor_view value ('!cuda_tile.tensor_view<64xf32, strides=[1]>') to be the same as the view's tensor_view type ('!cuda_tile.tensor_view<128xf32, strides=[1]>')}}
    %pv = "cuda_tile.make_partition_view"(%tv) : (tensor_view<64xf32, strides=[1]>) -> partition_view<tile=(16), tensor_view<128xf32, strides=[1]>>
    return
  }
}

// -----

cuda_tile.module @view_sv_tv {
  testing$func @sv_other_tv(%tv: tensor_view<64x64xf32, strides=[64,1]>) {
    // expected-error @below {{'cuda_tile.make_strided_view' op expected the type of the provided tensor_view value}}
    %sv = "cuda_tile.make_strided_view"(%tv) : (tensor_view<64x64xf32, strides=[64,1]>) -> strided_view<tile=(8x8), traversal_strides=[8,8], tensor_view<64x64xf16, strides=[64,1]>>
    return
  }
}

// -----

cuda_tile.module @view_tensor_shape_count {
  testing$func @tensor_shape(%tv: tensor_view<?x?xf32, strides=[?,1]>) {
    // expected-error @below {{'cuda_tile.get_tensor_shape' op expected 2 results due to tensor rank, but got 1}}
    %d = "cuda_tile.get_tensor_shape"(%tv) : (tensor_view<?x?xf32, strides=[?,1]>) -> tile<i32>
    return
  }
}

// -----

cuda_tile.module @view_index_space_count {
  testing$func @index_space(%pv: partition_view<tile=(8), tensor_view<?xf32, strides=[1]>>) {
    // expected-error @below {{'cuda_tile.get_index_space_shape' op expected 1 results due to view index space rank, but got 2}}
    %a, %b = "cuda_tile.get_index_space_shape"(%pv) : (partition_view<tile=(8), tensor_view<?xf32, strides=[1]>>) -> (tile<i32>, tile<i32>)
    return
  }
}

// -----

cuda_tile.module @view_load_index_count {
  testing$func @load_one_index(%pv: partition_view<tile=(4x4), tensor_view<16x16xf32, strides=[16,1]>>, %i: tile<i32>) {
    // expected-error @below {{'cuda_tile.load_view_tko' op expected 2 index operands (based on view type), got 1}}
    %v, %t = load_view_tko weak %pv[%i] : partition_view<tile=(4x4), tensor_view<16x16xf32, strides=[16,1]>>, tile<i32> -> tile<4x4xf32>, token
    return
  }
}

// -----

cuda_tile.module @view_load_tile_type {
  testing$func @load_wrong_tile(%pv: partition_view<tile=(4x4), tensor_view<16x16xf32, strides=[16,1]>>, %i: tile<i32>) {
    // expected-error @below {{'cuda_tile.load_view_tko' op expected tile type to be '!cuda_tile.tile<4x4xf32>' (based on view type), got '!cuda_tile.tile<8x8xf32>'}}
    %v, %t = load_view_tko weak %pv[%i, %i] : partition_view<tile=(4x4), tensor_view<16x16xf32, strides=[16,1]>>, tile<i32> -> tile<8x8xf32>, token
    return
  }
}

// -----

cuda_tile.module @view_load_index_types {
  testing$func @load_mixed_index(%pv: partition_view<tile=(4x4), tensor_view<16x16xf32, strides=[16,1]>>, %i: tile<i32>, %j: tile<i64>) {
    // expected-error @below {{'cuda_tile.load_view_tko' op expected index type 1 to be the same as other index types ('!cuda_tile.tile<i32>'), got '!cuda_tile.tile<i64>'}}
    %v, %t = "cuda_tile.load_view_tko"(%pv, %i, %j) <{memory_ordering_semantics = 0 : i32, operandSegmentSizes = array<i32: 1, 2, 0>}> : (partition_view<tile=(4x4), tensor_view<16x16xf32, strides=[16,1]>>, tile<i32>, tile<i64>) -> (tile<4x4xf32>, token)
    return
  }
}

// -----

cuda_tile.module @view_load_index_rank {
  testing$func @load_vector_index(%pv: partition_view<tile=(4), tensor_view<16xf32, strides=[1]>>, %i: tile<2xi32>) {
    // expected-error @below {{'cuda_tile.load_view_tko' op expected index type to be a scalar tile, got '!cuda_tile.tile<2xi32>'}}
    %v, %t = "cuda_tile.load_view_tko"(%pv, %i) <{memory_ordering_semantics = 0 : i32, operandSegmentSizes = array<i32: 1, 1, 0>}> : (partition_view<tile=(4), tensor_view<16xf32, strides=[1]>>, tile<2xi32>) -> (tile<4xf32>, token)
    return
  }
}

// -----

cuda_tile.module @view_load_release {
  testing$func @load_release(%pv: partition_view<tile=(4), tensor_view<16xf32, strides=[1]>>, %i: tile<i32>) {
    // expected-error @below {{'cuda_tile.load_view_tko' op expect one of: weak, relaxed, or acquire, but got: release}}
    %v, %t = load_view_tko release device %pv[%i] : partition_view<tile=(4), tensor_view<16xf32, strides=[1]>>, tile<i32> -> tile<4xf32>, token
    return
  }
}

// -----

cuda_tile.module @view_load_weak_scope {
  testing$func @load_weak_scope(%pv: partition_view<tile=(4), tensor_view<16xf32, strides=[1]>>, %i: tile<i32>) {
    // expected-error @below {{custom op 'cuda_tile.load_view_tko' operation specifies weak memory ordering semantics, but then provides "device" scope, expected no memory scope.}}
    %v, %t = load_view_tko weak device %pv[%i] : partition_view<tile=(4), tensor_view<16xf32, strides=[1]>>, tile<i32> -> tile<4xf32>, token
    return
  }
}

// -----

cuda_tile.module @view_load_weak_scope_generic {
  testing$func @load_weak_scope(%pv: partition_view<tile=(4), tensor_view<16xf32, strides=[1]>>, %i: tile<i32>) {
    // expected-error @below {{'cuda_tile.load_view_tko' op weak load must not have memory scope}}
    %v, %t = "cuda_tile.load_view_tko"(%pv, %i) <{memory_ordering_semantics = 0 : i32, memory_scope = 1 : i32, operandSegmentSizes = array<i32: 1, 1, 0>}> : (partition_view<tile=(4), tensor_view<16xf32, strides=[1]>>, tile<i32>) -> (tile<4xf32>, token)
    return
  }
}

// -----

cuda_tile.module @view_load_acquire_scope {
  testing$func @load_acquire_unscoped(%pv: partition_view<tile=(4), tensor_view<16xf32, strides=[1]>>, %i: tile<i32>) {
    // expected-error @below {{'cuda_tile.load_view_tko' op memory scope is required for acquire load}}
    %v, %t = "cuda_tile.load_view_tko"(%pv, %i) <{memory_ordering_semantics = 2 : i32, operandSegmentSizes = array<i32: 1, 1, 0>}> : (partition_view<tile=(4), tensor_view<16xf32, strides=[1]>>, tile<i32>) -> (tile<4xf32>, token)
    return
  }
}

// -----

cuda_tile.module @view_load_not_view {
  testing$func @load_from_tensor_view(%tv: tensor_view<16xf32, strides=[1]>, %i: tile<i32>) {
    // expected-error @below {{'cuda_tile.load_view_tko' op operand #0 must be TileView instance, but got '!cuda_tile.tensor_view<16xf32, strides=[1]>'}}
    %v, %t = "cuda_tile.load_view_tko"(%tv, %i) <{memory_ordering_semantics = 0 : i32, operandSegmentSizes = array<i32: 1, 1, 0>}> : (tensor_view<16xf32, strides=[1]>, tile<i32>) -> (tile<4xf32>, token)
    return
  }
}

// -----

cuda_tile.module @view_store_tile_type {
  testing$func @store_wrong_elt(%pv: partition_view<tile=(8x2), tensor_view<32x32xf16, strides=[32,1]>>, %x: tile<8x2xf32>, %i: tile<i32>) {
    // expected-error @below {{'cuda_tile.store_view_tko' op expected tile type to be '!cuda_tile.tile<8x2xf16>' (based on view type), got '!cuda_tile.tile<8x2xf32>'}}
    %t = store_view_tko weak %x, %pv[%i, %i] : tile<8x2xf32>, partition_view<tile=(8x2), tensor_view<32x32xf16, strides=[32,1]>>, tile<i32> -> token
    return
  }
}

// -----

cuda_tile.module @view_store_acquire {
  testing$func @store_acquire(%pv: partition_view<tile=(8), tensor_view<32xf16, strides=[1]>>, %x: tile<8xf16>, %i: tile<i32>) {
    // expected-error @below {{'cuda_tile.store_view_tko' op expect one of: weak, relaxed, or release, but got: acquire}}
    %t = store_view_tko acquire sys %x, %pv[%i] : tile<8xf16>, partition_view<tile=(8), tensor_view<32xf16, strides=[1]>>, tile<i32> -> token
    return
  }
}

// -----

cuda_tile.module @view_store_index_count {
  testing$func @store_indices(%pv: partition_view<tile=(8), tensor_view<32xf16, strides=[1]>>, %x: tile<8xf16>, %i: tile<i32>) {
    // expected-error @below {{'cuda_tile.store_view_tko' op expected 1 index operands (based on view type), got 3}}
    %t = store_view_tko weak %x, %pv[%i, %i, %i] : tile<8xf16>, partition_view<tile=(8), tensor_view<32xf16, strides=[1]>>, tile<i32> -> token
    return
  }
}

// -----

cuda_tile.module @view_strided_tile {
  testing$func @strided_load(%sv: strided_view<tile=(4x4), traversal_strides=[4,4], tensor_view<16x16xf32, strides=[16,1]>>, %i: tile<i32>) {
    // expected-error @below {{'cuda_tile.load_view_tko' op expected tile type to be '!cuda_tile.tile<4x4xf32>' (based on view type), got '!cuda_tile.tile<4x4xf16>'}}
    %v, %t = load_view_tko weak %sv[%i, %i] : strided_view<tile=(4x4), traversal_strides=[4,4], tensor_view<16x16xf32, strides=[16,1]>>, tile<i32> -> tile<4x4xf16>, token
    return
  }
}

// -----

cuda_tile.module @view_gather_rank {
  testing$func @gather_scalar(%gv: gather_scatter_view<tile=(8x4), tensor_view<64x4xf32, strides=[4,1]>, sparse_dim=0>, %i: tile<i32>) {
    // expected-error @below {{'cuda_tile.load_view_tko' op expected index at sparse_dim position 0 to be a 1D tensor for GatherScatterView, got rank 0}}
    %v, %t = "cuda_tile.load_view_tko"(%gv, %i, %i) <{memory_ordering_semantics = 0 : i32, operandSegmentSizes = array<i32: 1, 2, 0>}> : (gather_scatter_view<tile=(8x4), tensor_view<64x4xf32, strides=[4,1]>, sparse_dim=0>, tile<i32>, tile<i32>) -> (tile<8x4xf32>, token)
    return
  }
}

// -----

cuda_tile.module @view_gather_size {
  testing$func @gather_size(%gv: gather_scatter_view<tile=(8x4), tensor_view<64x4xf32, strides=[4,1]>, sparse_dim=0>, %rows: tile<16xi32>, %i: tile<i32>) {
    // expected-error @below {{'cuda_tile.load_view_tko' op expected gather/scatter index size (16) to match tile shape at gather/scatter dimension 0 (8)}}
    %v, %t = "cuda_tile.load_view_tko"(%gv, %rows, %i) <{memory_ordering_semantics = 0 : i32, operandSegmentSizes = array<i32: 1, 2, 0>}> : (gather_scatter_view<tile=(8x4), tensor_view<64x4xf32, strides=[4,1]>, sparse_dim=0>, tile<16xi32>, tile<i32>) -> (tile<8x4xf32>, token)
    return
  }
}

// -----

cuda_tile.module @view_gather_dense_index {
  testing$func @gather_dense(%gv: gather_scatter_view<tile=(8x4), tensor_view<64x4xf32, strides=[4,1]>, sparse_dim=0>, %rows: tile<8xi32>, %cols: tile<4xi32>) {
    // expected-error @below {{'cuda_tile.load_view_tko' op expected index 1 to be a scalar tile for GatherScatterView}}
    %v, %t = "cuda_tile.load_view_tko"(%gv, %rows, %cols) <{memory_ordering_semantics = 0 : i32, operandSegmentSizes = array<i32: 1, 2, 0>}> : (gather_scatter_view<tile=(8x4), tensor_view<64x4xf32, strides=[4,1]>, sparse_dim=0>, tile<8xi32>, tile<4xi32>) -> (tile<8x4xf32>, token)
    return
  }
}
