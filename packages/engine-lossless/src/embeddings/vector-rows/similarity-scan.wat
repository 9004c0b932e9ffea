;; Dot products of one vector with many, four lanes at a time (WebAssembly SIMD).
;; `vector-rows.ts` embeds the compiled bytes; `scripts/build-similarity-wasm.ts` rebuilds them
;; from this file, and a test checks that the two agree.
(module
  (memory (export "memory") 1)
  ;; Writes dot($query, row) as an f32 at $out + 4·i for each of the $count rows starting at $rows.
  ;; Every vector holds $stride floats, a multiple of four; all pointers are 16-byte aligned.
  (func (export "scan")
    (param $query i32) (param $rows i32) (param $count i32) (param $stride i32) (param $out i32)
    (local $end i32) (local $rowEnd i32) (local $offset i32) (local $sum v128) (local $rowBytes i32)
    (local.set $rowBytes (i32.shl (local.get $stride) (i32.const 2)))
    (local.set $end (i32.add (local.get $out) (i32.shl (local.get $count) (i32.const 2))))
    (block $rowsDone
      (loop $eachRow
        (br_if $rowsDone (i32.ge_u (local.get $out) (local.get $end)))
        (local.set $sum (v128.const f32x4 0 0 0 0))
        (local.set $offset (i32.const 0))
        (block $lanesDone
          (loop $eachLane
            (br_if $lanesDone (i32.ge_u (local.get $offset) (local.get $rowBytes)))
            (local.set $sum
              (f32x4.add (local.get $sum)
                (f32x4.mul
                  (v128.load (i32.add (local.get $query) (local.get $offset)))
                  (v128.load (i32.add (local.get $rows) (local.get $offset))))))
            (local.set $offset (i32.add (local.get $offset) (i32.const 16)))
            (br $eachLane)))
        (f32.store (local.get $out)
          (f32.add
            (f32.add (f32x4.extract_lane 0 (local.get $sum)) (f32x4.extract_lane 1 (local.get $sum)))
            (f32.add (f32x4.extract_lane 2 (local.get $sum)) (f32x4.extract_lane 3 (local.get $sum)))))
        (local.set $rows (i32.add (local.get $rows) (local.get $rowBytes)))
        (local.set $out (i32.add (local.get $out) (i32.const 4)))
        (br $eachRow)))))
