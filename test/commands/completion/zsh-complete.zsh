# Asks a real interactive zsh, through a pseudo-terminal (zsh/zpty), what <TAB> offers for each
# command line given, with only the completion file under test loaded (compinit, no rc files).
# Prints each line's candidates, one per line, then a line "--".
#   zsh -f zsh-complete.zsh <folder holding _rfs> <out file> <line>...
# A compadd wrapper records the words each call would add after zsh's own matching, so the
# answer is what zsh itself would show, matchers (any letter case) included.
emulate -L zsh
zmodload zsh/zpty || exit 97
local dir=$1 out=$2
shift 2

zpty -b rfs_zsh 'zsh -f -i'
zpty -w rfs_zsh "PS1='% '; RPS1=''; unsetopt beep; fpath=(${(q)dir} \$fpath)"
zpty -w rfs_zsh 'autoload -Uz compinit && compinit -u -D'
zpty -w rfs_zsh "zstyle ':completion:*' menu no; bindkey '^I' complete-word"
zpty -w rfs_zsh "compadd() { if (( \${@[(I)-[OAD]]} )); then builtin compadd \"\$@\"; return; fi; local -a __w; builtin compadd -A __w \"\$@\"; (( \$#__w )) && print -rl -- \"\${__w[@]}\" >>| ${(q)out}; builtin compadd \"\$@\" }"

local line junk tries
# Waits until the marker line is in the out file: what was typed before it has been handled.
await() {
  tries=0
  until grep -q '^__rfs_done__$' $out 2>/dev/null; do
    (( ++tries > 400 )) && { print -u2 "zsh did not answer for: $1"; zpty -d rfs_zsh; exit 98 }
    while zpty -rt rfs_zsh junk 2>/dev/null; do :; done
    sleep 0.02
  done
}
# The shell is ready (compinit done, the wrapper defined) before the first line is typed:
# keys typed earlier can reach zle before completion is set up.
: >| $out
zpty -w rfs_zsh "print -r -- __rfs_done__ >>| ${(q)out}"
await 'start-up'
for line in "$@"; do
  : >| $out
  zpty -w -n rfs_zsh "$line"$'\t'
  # Ctrl-U clears the line; the marker then says that the completion before it has finished.
  zpty -w -n rfs_zsh $'\x15'
  zpty -w rfs_zsh "print -r -- __rfs_done__ >>| ${(q)out}"
  await "$line"
  grep -v '^__rfs_done__$' $out | sort -u
  print -- --
done
zpty -d rfs_zsh
