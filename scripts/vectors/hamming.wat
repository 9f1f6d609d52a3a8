;; The Hamming pass of retrieval/similarity.ts `nearest`, as WebAssembly: i64.popcnt does in one
;; instruction what JavaScript does with table lookups, before the JIT has warmed up.
;; Rebuild: `bun scripts/vectors/hamming.ts` prints the base64 that src/retrieval/similarity.ts holds.
(module
  (memory (export "memory") 1)
  ;; dist[i] = popcount(code[i] XOR query) for `n` 32-byte codes at `codes`; the query (32 bytes)
  ;; at `q`; distances as u16 at `dist`; hist[d] (257 u32, zeroed by the caller) counts each distance.
  (func (export "hamming") (param $codes i32) (param $n i32) (param $q i32) (param $dist i32) (param $hist i32)
    (local $q0 i64) (local $q1 i64) (local $q2 i64) (local $q3 i64) (local $end i32) (local $d i32) (local $h i32)
    (local.set $q0 (i64.load (local.get $q)))
    (local.set $q1 (i64.load offset=8 (local.get $q)))
    (local.set $q2 (i64.load offset=16 (local.get $q)))
    (local.set $q3 (i64.load offset=24 (local.get $q)))
    (local.set $end (i32.add (local.get $codes) (i32.shl (local.get $n) (i32.const 5))))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $codes) (local.get $end)))
        (local.set $d
          (i32.wrap_i64
            (i64.add
              (i64.add
                (i64.popcnt (i64.xor (i64.load (local.get $codes)) (local.get $q0)))
                (i64.popcnt (i64.xor (i64.load offset=8 (local.get $codes)) (local.get $q1))))
              (i64.add
                (i64.popcnt (i64.xor (i64.load offset=16 (local.get $codes)) (local.get $q2)))
                (i64.popcnt (i64.xor (i64.load offset=24 (local.get $codes)) (local.get $q3)))))))
        (i32.store16 (local.get $dist) (local.get $d))
        (local.set $h (i32.add (local.get $hist) (i32.shl (local.get $d) (i32.const 2))))
        (i32.store (local.get $h) (i32.add (i32.load (local.get $h)) (i32.const 1)))
        (local.set $codes (i32.add (local.get $codes) (i32.const 32)))
        (local.set $dist (i32.add (local.get $dist) (i32.const 2)))
        (br $next))))
  ;; The indexes (u32 at `out`, ascending) of the distances below `cut`, and of the first `ties`
  ;; equal to it; returns how many were written.
  (func (export "select") (param $dist i32) (param $n i32) (param $cut i32) (param $ties i32) (param $out i32) (result i32)
    (local $i i32) (local $d i32) (local $k i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $d (i32.load16_u (i32.add (local.get $dist) (i32.shl (local.get $i) (i32.const 1)))))
        (if (i32.or
              (i32.lt_u (local.get $d) (local.get $cut))
              (i32.and (i32.eq (local.get $d) (local.get $cut)) (i32.gt_s (local.get $ties) (i32.const 0))))
          (then
            (if (i32.eq (local.get $d) (local.get $cut)) (then (local.set $ties (i32.sub (local.get $ties) (i32.const 1)))))
            (i32.store (i32.add (local.get $out) (i32.shl (local.get $k) (i32.const 2))) (local.get $i))
            (local.set $k (i32.add (local.get $k) (i32.const 1)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (local.get $k))
  ;; out[i] (f64 at `out`) = the dot product of the query (`dims` f32 at `q`) with the i-th of `n`
  ;; stored vectors at `vecs`, each `stride` bytes: an f32 scale, then `dims` int8 components.
  ;; In f64 and in the order JavaScript would add them: the same numbers to the last bit.
  (func (export "dots") (param $vecs i32) (param $n i32) (param $stride i32) (param $dims i32) (param $q i32) (param $out i32)
    (local $i i32) (local $j i32) (local $v i32) (local $s f64)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $v (i32.add (local.get $vecs) (i32.mul (local.get $i) (local.get $stride))))
        (local.set $s (f64.const 0))
        (local.set $j (i32.const 0))
        (block $row
          (loop $comp
            (br_if $row (i32.ge_u (local.get $j) (local.get $dims)))
            (local.set $s
              (f64.add (local.get $s)
                (f64.mul
                  (f64.promote_f32 (f32.load (i32.add (local.get $q) (i32.shl (local.get $j) (i32.const 2)))))
                  (f64.convert_i32_s (i32.load8_s offset=4 (i32.add (local.get $v) (local.get $j)))))))
            (local.set $j (i32.add (local.get $j) (i32.const 1)))
            (br $comp)))
        (f64.store (i32.add (local.get $out) (i32.shl (local.get $i) (i32.const 3)))
          (f64.mul (local.get $s) (f64.promote_f32 (f32.load (local.get $v)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))))
