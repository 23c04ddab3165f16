;; Tool "note": stores its input in the host memory backend (prx:host/memory) and publishes the new id on
;; topic "notes.stored" (prx:host/events); returns the id, or {success: false, error} when the host refuses.
(module
  (import "prx:host/memory@0.1.0" "store" (func $store (param i32 i32 i32 i32 i32)))
  (import "prx:host/events@0.1.0" "publish" (func $publish (param i32 i32 i32 i32 i32)))
  ;;@prelude
  ;;@component-prelude
  ;;@post prx:plugin/tool-exports@0.1.0#get-spec prx:plugin/tool-exports@0.1.0#execute
  ;;@str $name "note"
  ;;@str $desc "Stores a note in memory"
  ;;@str $schema "{}"
  ;;@str $category "note"
  ;;@str $topic "notes.stored"
  (func (export "prx:plugin/tool-exports@0.1.0#get-spec") (result i32)
    (call $spec $name.ptr $name.len $desc.ptr $desc.len $schema.ptr $schema.len))
  (func (export "prx:plugin/tool-exports@0.1.0#execute") (param $p i32) (param $n i32) (result i32)
    (local $r i32) (local $e i32)
    (local.set $r (call $malloc (i32.const 12)))
    (call $store (local.get $p) (local.get $n) $category.ptr $category.len (local.get $r))
    (if (i32.load8_u (local.get $r))
      (then (return (call $result (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 1)
        (i32.load offset=4 (local.get $r)) (i32.load offset=8 (local.get $r))))))
    (local.set $e (call $malloc (i32.const 12)))
    (call $publish $topic.ptr $topic.len (i32.load offset=4 (local.get $r)) (i32.load offset=8 (local.get $r)) (local.get $e))
    (if (i32.load8_u (local.get $e))
      (then (return (call $result (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 1)
        (i32.load offset=4 (local.get $e)) (i32.load offset=8 (local.get $e))))))
    (call $result (i32.const 1) (i32.load offset=4 (local.get $r)) (i32.load offset=8 (local.get $r)) (i32.const 0) (i32.const 0) (i32.const 0)))
)
