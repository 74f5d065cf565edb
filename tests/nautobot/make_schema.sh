#!/usr/bin/env bash
# Re-make schema-nautobot-VERSION.sql.gz: the database Nautobot's own migrations produce, which
# serve.sh loads instead of migrating at every test run. Run it after raising _nb_version in
# serve.sh; it takes about a quarter of an hour on two cores.
NAUTOBOT_TEST_MIGRATE=1 . "$(dirname "$0")/serve.sh"
[ -n "${NAUTOBOT_TEST_URL:-}" ] || exit 1
