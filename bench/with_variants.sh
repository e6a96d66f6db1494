# shellcheck shell=bash
# Sourced by bench/variants.sh and bench/carry.sh.
#
# free_tag FILE_PREFIX TAG: TAG, or TAG-2, TAG-3, ... the first for which
# FILE_PREFIX$TAG.log does not exist yet, so that a repeated run keeps
# each log and trace of its own.
free_tag() {
  local t=$2 n=1
  while [ -e "$1$t.log" ]; do n=$((n + 1)) t=$2-$n; done
  echo "$t"
}
#
# with_variants FN ARG...: for each ARG (PATCH, or A.patch+B.patch for both
# together), applies its patches to the tree, runs FN NAME (NAME: the
# patches' file names without .patch, joined by +), and takes them off
# again, so that the tree is left as it was. Where a patch does not apply
# it says so and FN does not run for that ARG.
with_variants() {
  local fn=$1 arg p v
  shift
  for arg in "$@"; do
    local ps=() applied=()
    IFS=+ read -ra ps <<<"$arg"
    v=
    for p in "${ps[@]}"; do
      v=${v:+$v+}$(basename "$p" .patch)
      if git apply "$p"; then
        applied=("$p" "${applied[@]}")
      else
        echo "$p: the patch does not apply"
      fi
    done
    if [ ${#applied[@]} = ${#ps[@]} ]; then
      "$fn" "$v"
    fi
    for p in "${applied[@]}"; do git apply -R "$p"; done
  done
}
