#!/usr/bin/env bash
# Installs what a fresh Debian machine lacks for the harness: ZooKeeper and Java (the embedded
# backend's coordination service), gcc and openssl (the ClickHouse launcher, TLS tests), Maven and
# through it the Apache Kafka broker, the npm
# packages (including the ClickHouse engine library), and builds the launcher and, with Go, the real
# Toxiproxy.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
command -v java >/dev/null 2>&1 || missing+=(default-jre-headless)
[ -f /usr/share/java/zookeeper.jar ] || missing+=(zookeeper)
command -v gcc >/dev/null 2>&1 || missing+=(gcc)
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
command -v mvn >/dev/null 2>&1 || missing+=(maven)
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi
npm run -s build:launcher >/dev/null
# The Apache Kafka broker (`--kafka N`), its jars fetched through Maven (pinned in the pom; cached).
if [ ! -f harness/cluster/kafka/lib/.fetched ] || [ harness/cluster/kafka/pom.xml -nt harness/cluster/kafka/lib/.fetched ]; then
  rm -rf harness/cluster/kafka/lib
  # Quiet unless it fails (Maven prints terminal escapes even with -q).
  if ! out=$(mvn -q -B -f harness/cluster/kafka/pom.xml dependency:copy-dependencies -DoutputDirectory="$PWD/harness/cluster/kafka/lib" 2>&1); then
    echo "$out" >&2
    echo "setup: fetching the Kafka broker through Maven failed" >&2
    exit 1
  fi
  touch harness/cluster/kafka/lib/.fetched
fi
# The real Toxiproxy (`--proxy toxiproxy`, its conformance tests) is built from source with Go.
if command -v go >/dev/null 2>&1; then
  npm run -s build:toxiproxy >/dev/null
else
  echo "setup: no Go: the real Toxiproxy is not built; --proxy toxiproxy and npm run test:toxiproxy-real need it (the default, --proxy builtin, does not)"
fi
echo "setup: ready (node $(node --version), $(java -version 2>&1 | head -1))"
