;; Tool "wasi_probe": imports WASI cli/io/clocks/filesystem 0.2.0, writes a line to stdout and reports
;; "sandboxed" when it sees no environment variables and no preopened directories and the clock works.
(module
  (import "wasi:cli/environment@0.2.0" "get-environment" (func $env (param i32)))
  (import "wasi:filesystem/preopens@0.2.0" "get-directories" (func $dirs (param i32)))
  (import "wasi:clocks/wall-clock@0.2.0" "now" (func $now (param i32)))
  (import "wasi:cli/stdout@0.2.0" "get-stdout" (func $stdout (result i32)))
  (import "wasi:io/streams@0.2.0" "[method]output-stream.blocking-write-and-flush" (func $write (param i32 i32 i32 i32)))
  (import "wasi:io/streams@0.2.0" "[resource-drop]output-stream" (func $drop (param i32)))
  ;;@prelude
  ;;@component-prelude
  ;;@post prx:plugin/tool-exports@0.1.0#get-spec prx:plugin/tool-exports@0.1.0#execute
  ;;@str $name "wasi_probe"
  ;;@str $desc "Probes its WASI sandbox"
  ;;@str $schema "{}"
  ;;@str $hello "hello from wasi\n"
  ;;@str $good "sandboxed"
  ;;@str $bad "leaky"
  (func (export "prx:plugin/tool-exports@0.1.0#get-spec") (result i32)
    (call $spec $name.ptr $name.len $desc.ptr $desc.len $schema.ptr $schema.len))
  (func (export "prx:plugin/tool-exports@0.1.0#execute") (param $p i32) (param $n i32) (result i32)
    (local $r i32) (local $envLen i32) (local $dirLen i32) (local $secs i64) (local $h i32)
    (local.set $r (call $malloc (i32.const 16)))
    (call $env (local.get $r))
    (local.set $envLen (i32.load offset=4 (local.get $r)))
    (call $dirs (local.get $r))
    (local.set $dirLen (i32.load offset=4 (local.get $r)))
    (call $now (local.get $r))
    (local.set $secs (i64.load (local.get $r)))
    (local.set $h (call $stdout))
    (call $write (local.get $h) $hello.ptr $hello.len (local.get $r))
    (call $drop (local.get $h))
    (if (result i32) (i32.and (i32.and (i32.eqz (local.get $envLen)) (i32.eqz (local.get $dirLen))) (i64.gt_u (local.get $secs) (i64.const 0)))
      (then (call $result (i32.const 1) $good.ptr $good.len (i32.const 0) (i32.const 0) (i32.const 0)))
      (else (call $result (i32.const 1) $bad.ptr $bad.len (i32.const 0) (i32.const 0) (i32.const 0)))))
)
