#!/usr/bin/env bash
# Puts the Java 8 and Java 11 runtimes the integration tests fork applications on under DIR, from Debian's own
# packages, installing nothing system-wide: DIR/java-8/bin/java (8u, with tools.jar) and DIR/java-11/bin/java.
#   usage: .ci/old-jdks.sh [DIR]     (default: ~/.cache/retry-agent/jdks, where the Maven build looks)
# Idempotent: a DIR that already holds both is left as it is, so CI caches it between runs.
#
# Java 11 comes from Debian 11 (bullseye) and runs here as it is. Java 8 is packaged only in Debian unstable (sid),
# built against a newer C library than Debian 12 has: its binaries get sid's libc unpacked beside them (patchelf
# points their ELF interpreter and library path there); nothing else about them changes. The Debian mirror is the
# one this machine's apt sources name.
set -euo pipefail
DIR=${1:-$HOME/.cache/retry-agent/jdks}
mkdir -p "$DIR"; DIR=$(cd "$DIR" && pwd)
if [ -x "$DIR/java-8/bin/java" ] && [ -x "$DIR/java-11/bin/java" ]; then
  echo "old-jdks: Java 8 and 11 already in $DIR"; exit 0
fi

mirror=$(grep -h -m1 -E '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '{print $2}' || true)
[ -n "$mirror" ] || mirror=$(grep -h -m1 -E '^deb ' /etc/apt/sources.list 2>/dev/null | awk '{print $2}' || true)
[ -n "$mirror" ] || { echo "old-jdks: no Debian mirror in /etc/apt/sources.list*" >&2; exit 1; }
host_suite=$(. /etc/os-release && echo "$VERSION_CODENAME")

WORK=$(mktemp -d); trap 'rm -rf "$WORK"' EXIT
download() { # SUITE PACKAGE... : the packages' .deb files into $WORK/SUITE (apt state kept in $WORK too)
  local suite=$1; shift; local state=$WORK/apt-$suite
  mkdir -p "$state/lists/partial" "$state/cache/archives/partial" "$WORK/$suite"
  echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $suite main" >"$state/sources.list"
  local opts=(-o "Dir::Etc::sourcelist=$state/sources.list" -o Dir::Etc::sourceparts=- -o "Dir::State::Lists=$state/lists"
    -o "Dir::Cache=$state/cache" -o APT::Sandbox::User=root)
  apt-get "${opts[@]}" -qq update
  (cd "$WORK/$suite" && apt-get "${opts[@]}" -qq download "$@")
}
unpack() { # SUITE PATTERN ROOT
  mkdir -p "$3"; for deb in "$WORK/$1"/$2; do dpkg-deb -x "$deb" "$3"; done
}
real_config_files() { # ROOT: Debian links the JDK's configuration into /etc; copy the unpacked files in their place
  find "$1/usr/lib/jvm" -type l -lname '/etc/*' | while read -r link; do
    target=$(readlink "$link"); if [ -e "$1$target" ]; then rm "$link"; cp -r "$1$target" "$link"; fi
  done
}

download bullseye openjdk-11-jre-headless openjdk-11-jdk-headless
rm -rf "$DIR/root-11"; unpack bullseye 'openjdk-11-*.deb' "$DIR/root-11"; real_config_files "$DIR/root-11"

download sid openjdk-8-jre-headless openjdk-8-jdk-headless libc6 zlib1g libgcc-s1 libstdc++6
download "$host_suite" patchelf
rm -rf "$DIR/root-8" "$DIR/sid-libc" "$WORK/patchelf"
unpack sid 'openjdk-8-*.deb' "$DIR/root-8"; real_config_files "$DIR/root-8"
unpack sid 'lib*.deb' "$DIR/sid-libc"; unpack sid 'zlib1g*.deb' "$DIR/sid-libc"
unpack "$host_suite" 'patchelf*.deb' "$WORK/patchelf"
patchelf=$WORK/patchelf/usr/bin/patchelf
j8=$DIR/root-8/usr/lib/jvm/java-8-openjdk-amd64; libc=$DIR/sid-libc/usr/lib/x86_64-linux-gnu
for bin in "$j8"/jre/bin/* "$j8"/bin/*; do
  file=$(readlink -f "$bin"); [ -f "$file" ] && head -c4 "$file" | grep -q ELF || continue
  "$patchelf" --set-interpreter "$libc/ld-linux-x86-64.so.2" --force-rpath --set-rpath \
    "$libc:\$ORIGIN/../lib/amd64/jli:\$ORIGIN/../lib/amd64:\$ORIGIN/../jre/lib/amd64/jli:\$ORIGIN/../jre/lib/amd64" "$file"
done

ln -sfn "$DIR/root-11/usr/lib/jvm/java-11-openjdk-amd64" "$DIR/java-11"
ln -sfn "$j8" "$DIR/java-8"
"$DIR/java-8/bin/java" -version 2>&1 | head -1
"$DIR/java-11/bin/java" -version 2>&1 | head -1
