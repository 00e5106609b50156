// Atomics: every tile block takes a ticket from a global counter (atomic add),
// claims slot bx % 4 of `owner` with compare-and-swap (0 -> bx + 1: the first
// block to get there wins) and records what it saw:
//   tickets[bx] = ticket, seen[bx] = the slot's value before the CAS.
cuda_tile.module @ticket_lock {
  global @counter <i32: [0]> : tile<1xi32>
  entry @ticket_lock(%owner: tile<ptr<i32>>, %tickets: tile<ptr<i32>>, %seen: tile<ptr<i32>>) {
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %one = constant <i32: 1> : tile<i32>
    %zero = constant <i32: 0> : tile<i32>
    %four = constant <i32: 4> : tile<i32>
    %ctr = get_global @counter : tile<ptr<i32>>
    %ticket, %t0 = atomic_rmw_tko relaxed device %ctr, add, %one : tile<ptr<i32>>, tile<i32> -> tile<i32>, token
    %slot = remi %bx, %four signed : tile<i32>
    %ps = offset %owner, %slot : tile<ptr<i32>>, tile<i32> -> tile<ptr<i32>>
    %me = addi %bx, %one : tile<i32>
    %old, %t1 = atomic_cas_tko acq_rel device %ps, %zero, %me : tile<ptr<i32>>, tile<i32> -> tile<i32>, token
    %pt = offset %tickets, %bx : tile<ptr<i32>>, tile<i32> -> tile<ptr<i32>>
    %t2 = store_ptr_tko weak %pt, %ticket : tile<ptr<i32>>, tile<i32> -> token
    %pw = offset %seen, %bx : tile<ptr<i32>>, tile<i32> -> tile<ptr<i32>>
    %t3 = store_ptr_tko weak %pw, %old : tile<ptr<i32>>, tile<i32> -> token
    return
  }
}
