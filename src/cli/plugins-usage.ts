/** `prx plugins --help`. */
export const PLUGINS_USAGE = `Usage: prx plugins <command> [--json]
  list              every plugin of the workspace with its status
  info <name>       one plugin: capabilities, permissions, counters, warnings
  reload <name> [--all] [--force]
                    build a new generation in this process: the plugin and those whose inputs changed are
                    rebuilt, the others carried over (--all: rebuild every plugin; --all without a name works
                    too); refused if an active plugin would fail, unless --force (a running gateway reloads live
                    with POST /api/plugins/<name>/reload or POST /api/plugins/reload)
  validate <dir>    check a plugin directory: manifest, admission limits, permissions, load and specs
  probe <action> [<json>] [--plugin P]
                    run wasm_plugins_manage in this process: list, status, reload, middleware_test, cron_run,
                    provider_chat, storage; <json> holds the action's fields, e.g.
                    prx plugins probe middleware_test '{"stage":"inbound","data":{...}}' --plugin redact
                    (a running gateway answers the same probes at POST /api/plugins/<name>/probe)

elizaOS plugins from npm (installed with the Bun inside prx; see prx plugins add --help):
  add <npm-package>[@version] [--transport worker|process] [--name N] [--allow-scripts]
                    a plugin folder for the package, installed, checked and loaded by the running gateway
  update <name> [version]
                    the package at that version (default latest), reloaded
  remove <name>     the folder of a plugin added this way, unloaded

Writing plugins (nothing to install beside prx):
  new <name> --kind tool|middleware|hook|cron|provider|storage|remote [--dir D]
                    scaffold a plugin folder (default ./<name>): plugin.toml, src/plugin.ts, plugin.test.ts, README
  build [dir] [--force]
                    src/plugin.ts -> plugin.wasm, a component against the PRX WIT (QuickJS, offline); skipped
                    when nothing changed
  test [dir]        build, run validate's admission checks, then the folder's plugin.test.ts with bun test
                    against a real prx sandbox (host imports backed by a throw-away workspace)
  dev [dir] [--url U]
                    rebuild on every change, install into the workspace and hot-reload it in the workspace's
                    running gateway (U: its address, default from config.toml [gateway])
  pack [dir] [--out FILE|DIR]
                    a .tar.gz of the built plugin with a content hash (prx-pack.json inside)
  install <file|dir> [--force]
                    admit a pack or a folder into the workspace's plugins/ (validate's rules); --force replaces
                    an installed plugin of the same name
`;
