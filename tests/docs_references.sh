#!/usr/bin/env bash
# docs_references: every "docs/dynamics.md §N" (also §N–M, §N.k, §N item k) and every
# "docs/c-api.md rule N" in the sources names a section, an item of the test oracle (§6) or a
# rule that exists. References split over two lines are not seen.
# usage: docs_references.sh <source dir>
set -euo pipefail
root=$1
dyn="$root/docs/dynamics.md"
capi="$root/docs/c-api.md"
status=0
checked=0
fail() {
  echo "FAIL: $*"
  status=1
}

sources() {
  grep -rnoE "$1" "$root"/src "$root"/include "$root"/capi "$root"/tests "$root"/cmake \
    "$root"/models "$root"/docs "$root"/README.md "$root"/CMakeLists.txt 2>/dev/null || true
}

# The items of the numbered list of section 6 of dynamics.md.
oracle_items=$(awk '/^## 6\./ {in6 = 1; next} /^## / {in6 = 0} in6 && /^[0-9]+\. / {print $1}' \
  "$dyn" | tr -d '.')

while IFS= read -r hit; do
  [[ -n "$hit" ]] || continue
  where=${hit%%:docs/*}
  ref=${hit#"$where":}
  sections=$(grep -oE '§[0-9]+([–-][0-9]+)?' <<<"$ref" | head -1 | sed -e 's/§//' -e 's/–/-/')
  first=${sections%-*}
  last=${sections#*-}
  for ((n = first; n <= last; ++n)); do
    checked=$((checked + 1))
    grep -qE "^## $n\. " "$dyn" || fail "$where: '$ref': docs/dynamics.md has no section $n"
  done
  item=$(grep -oE '§6(\.| item )[0-9]+' <<<"$ref" | grep -oE '[0-9]+$' || true)
  if [[ -n "$item" ]]; then
    grep -qx "$item" <<<"$oracle_items" || fail "$where: '$ref': §6 has no item $item"
  fi
done < <(sources 'docs/dynamics\.md §[0-9]+(([–-][0-9]+)|(\.[0-9]+)|( item [0-9]+))?')

while IFS= read -r hit; do
  [[ -n "$hit" ]] || continue
  where=${hit%%:docs/*}
  ref=${hit#"$where":}
  n=$(grep -oE '[0-9]+$' <<<"$ref")
  checked=$((checked + 1))
  grep -qE "^$n\. \*\*" "$capi" || fail "$where: '$ref': docs/c-api.md has no rule $n"
done < <(sources 'docs/c-api\.md rule [0-9]+')

# Equation labels: every "(Dk)" or "(Ck)" cited in the sources is a label of docs/dynamics.md or
# docs/contacts.md, and every
# row of its §10 table names a file that exists, defines the function and cites the label.
labels=$( (grep -oE '\(D[0-9]+\)' "$dyn"; grep -oE '\(C[0-9]+\)' "$root/docs/contacts.md"
  grep -oE '\(K[0-9]+\)' "$root/docs/constraints.md") | sort -u)
while IFS= read -r hit; do
  [[ -n "$hit" ]] || continue
  where=${hit%:*}
  label=${hit##*:}
  checked=$((checked + 1))
  grep -qxF -- "$label" <<<"$labels" || fail "$where: $label is not a label of docs/dynamics.md, docs/contacts.md or docs/constraints.md"
done < <(grep -rnoE '\((D|C|K)[0-9]+\)' "$root"/src "$root"/include "$root"/capi 2>/dev/null || true)
rows=0
while IFS='|' read -r _ label _ file fn _; do
  label=$(tr -d ' ' <<<"$label")
  file=$(tr -d ' `' <<<"$file")
  fn=$(tr -d ' `' <<<"$fn")
  rows=$((rows + 1))
  checked=$((checked + 1))
  if [[ ! -f "$root/$file" ]]; then
    fail "docs/dynamics.md §10: $label: no file $file"
    continue
  fi
  grep -qE "(^|[^A-Za-z0-9_])$fn\(" "$root/$file" || fail "docs/dynamics.md §10: $label: $file has no function $fn"
  grep -qF -- "$label" "$root/$file" || fail "docs/dynamics.md §10: $label: $file does not cite it"
done < <(awk '/^## 10\./ {in10 = 1; next} /^## / {in10 = 0} in10 && /^\| \((D|C|K)[0-9]+\)/' "$dyn")
((rows >= 20)) || fail "docs/dynamics.md §10 has only $rows equation rows"

((checked > 20)) || fail "only $checked references found: is '$root' the source tree?"
echo "docs_references: $checked references checked"
exit $status
