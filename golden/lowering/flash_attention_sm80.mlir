// tilec opt golden/lowering/flash_attention_f16.mlir --lower-to-tileas=arch=sm_80 --schedule=num-stages=3
// sm_80 with three stages: the prologue fills two stages of each pipeline, the loop
// produces two iterations ahead.
// CHECK: entry @flash_attention_f16
// CHECK-NOT: agent_switch
// CHECK: create_pipeline {{.*}}numStages = 3 : i32
// CHECK: create_pipeline {{.*}}numStages = 3 : i32
// CHECK-COUNT-2: produce_one
// CHECK-COUNT-2: produce_one
// CHECK: scf.for
// CHECK: arith.addi
// CHECK: produce_one
// CHECK: produce_one
// CHECK: consume_one
// CHECK: consume_one
// CHECK: nv_tileas.dot {{.*}}atom = #nv_tileas<atom mma_f16_f16_f32>
// CHECK: nv_tileas.dot
// CHECK: scf.yield
