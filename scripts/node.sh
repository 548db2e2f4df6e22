#!/usr/bin/env bash
# Node.js 22 or newer for this project (package.json's engines), where the machine's `node` is older:
# Node 22 LTS is installed once from the npm registry's package node-<os>-<arch> (it ships bin/node
# and the include/node headers) into a cache outside the clone, and put first on PATH, with
# npm_config_nodedir naming its headers so native modules (better-sqlite3) build for it rather
# than for the machine's Node. Where `node` is already 22 or newer, nothing changes.
#
#   source scripts/node.sh        # this shell (then npm ci, npm test, npm start ...)
#   bash scripts/node.sh npm ci   # one command
#   bash scripts/node.sh          # prints the node it uses
#
# The machine's npm does the download (its registry settings apply) and keeps running the
# installs, now under Node 22. Fails naming the step; a second run finds the cache and fetches nothing.

MINIGAME_NODE_FLOOR=22
# The Node 22 release installed where the machine's is older; bump it for Node's security releases.
MINIGAME_NODE_RELEASE=22.23.5

_minigame_node_fail() { echo "scripts/node.sh: $1" >&2; return 1; }

_minigame_node_major() { # the major version of the `node` on PATH, 0 when there is none
  local version
  version="$(node --version 2>/dev/null)" || { echo 0; return; }
  version="${version#v}"
  echo "${version%%.*}"
}

_minigame_node_ensure() {
  local major os arch cache dir staging tarball
  major="$(_minigame_node_major)"
  [ "$major" -ge "$MINIGAME_NODE_FLOOR" ] 2>/dev/null && return 0

  case "$(uname -s)" in
    Linux) os=linux ;;
    Darwin) os=darwin ;;
    *) _minigame_node_fail "no Node $MINIGAME_NODE_FLOOR package for $(uname -s): install Node $MINIGAME_NODE_FLOOR or newer by hand" || return 1 ;;
  esac
  case "$(uname -m)" in
    x86_64 | amd64) arch=x64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *) _minigame_node_fail "no Node $MINIGAME_NODE_FLOOR package for $(uname -m): install Node $MINIGAME_NODE_FLOOR or newer by hand" || return 1 ;;
  esac
  cache="${XDG_CACHE_HOME:-$HOME/.cache}/minigame-server"
  dir="$cache/node-$MINIGAME_NODE_RELEASE-$os-$arch"

  if [ ! -x "$dir/bin/node" ]; then
    command -v npm >/dev/null || _minigame_node_fail "node is ${major:-missing} here and npm, which fetches Node $MINIGAME_NODE_FLOOR, is not installed" || return 1
    echo "scripts/node.sh: node on PATH is v$major; installing Node $MINIGAME_NODE_RELEASE (npm package node-$os-$arch) into $dir" >&2
    mkdir -p "$cache" || return 1
    # Unpacked beside its final place and renamed into it: an interrupted run never leaves a
    # half-written node that the next run would trust.
    staging="$(mktemp -d "$dir.partial.XXXXXX")" || return 1
    tarball="$(cd "$staging" && npm pack --silent "node-$os-$arch@$MINIGAME_NODE_RELEASE" | tail -n 1)" &&
      mkdir "$staging/node" && tar -xzf "$staging/$tarball" -C "$staging/node" --strip-components=1 &&
      [ "$("$staging/node/bin/node" --version 2>/dev/null)" = "v$MINIGAME_NODE_RELEASE" ] ||
      { rm -rf "$staging"; _minigame_node_fail "could not fetch or unpack node-$os-$arch@$MINIGAME_NODE_RELEASE from the npm registry" || return 1; }
    # Another run may have finished first: its copy is as good as this one.
    [ -e "$dir" ] || mv "$staging/node" "$dir" || { rm -rf "$staging"; _minigame_node_fail "could not move Node into $dir" || return 1; }
    rm -rf "$staging"
  fi
  export PATH="$dir/bin:$PATH"
  export npm_config_nodedir="$dir"
  hash -r 2>/dev/null || true
}

if [ "${BASH_SOURCE[0]}" != "$0" ]; then
  # Sourced: the caller's shell gets the PATH (and keeps its own shell options).
  _minigame_node_ensure
else
  set -euo pipefail
  _minigame_node_ensure
  if [ "$#" -eq 0 ]; then
    echo "$(command -v node) $(node --version)"
  else
    exec "$@"
  fi
fi
