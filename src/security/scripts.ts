// The shell the isolation runs. PRIVILEGED runs as root (directly, or through `sudo -n`): it creates the
// agent's user, gives it a fresh HOME and the work tree, and takes all of that back. LAUNCHER runs as the
// agent's user: it takes its environment from stdin, so no value shows in an argv and sudo's env_reset,
// secure_path and deny-lists change nothing about what the agent gets.

/**
 * A run holds its agent's user for its whole length: HOLDER (`PID:START` of the action's process) is written
 * to /run/ralph-action/agent-users/USER. A live other holder makes prepare and claim print `busy PID` and exit
 * 1, so two runs on one machine never share a uid (each kills every process of its uid).
 *
 * `bash -s -- prepare USER HOME TREE OWNER_UID OWNER_GROUPS PROGRAM SETTINGS HOLDER [REACH...]` takes USER for
 * HOLDER and prints `user UID GID`,
 * `top GID MODE` (the work tree's top folder before), `opened MODE PATH` for each folder it let the agent
 * pass through, or `error MESSAGE` and exits 1. SETTINGS (or '') is the staged copy of the agent CLI's settings:
 * its content goes into the fresh HOME while that is still root's, so nothing of the agent's user can race it.
 *
 * `bash -s -- lend UID GID DIR USER` gives DIR (a clean checkout the action made) to the agent's user, letting it
 * pass through DIR's parents (`opened MODE PATH` each); `bash -s -- reclaim UID GID DIR OWNER_UID OWNER_GID
 * [MODE PATH]...` takes DIR back (GIVE_BACK) and restores those modes. Every process of UID must be dead by then.
 *
 * `bash -s -- claim USER HOLDER WAS` takes USER for HOLDER when WAS (the run it releases for) or no live run
 * holds it: post, after a killed main, holds the user before it kills what is left of it.
 *
 * `bash -s -- release UID GID HOME TREE OWNER_UID OWNER_GID TOP_GID TOP_MODE USER HOLDER SECONDS PLACES [MODE PATH]...`
 * gives back what the agent owns in the work tree (GIVE_BACK), restores the modes, removes the HOME, UID's files
 * in PLACES (SWEEP_FILES, within SECONDS) and HOLDER's hold on USER, and prints `swept N`, and `problem MESSAGE`
 * for what it could not do (one names what stays UID's). Every process of UID must be dead by then.
 */
/**
 * The bash function `sweep_files UID SECONDS KEEP PLACE...`: removes every file, link and (then empty) folder
 * that UID owns under each PLACE (a folder, not a link), but what is in the folder KEEP (the work tree, when it
 * lies in a PLACE; '' for none), and prints `swept N` (how many it removed), and `problem MESSAGE` when it ran out
 * of time. Links are removed, never followed, and nothing of another uid is touched: a folder of UID that holds
 * another user's file stays, with that file. A setuid file of UID goes with its name; no other name of it is
 * left (protected_hardlinks: UID could link it only where it could write). One file system each (-xdev):
 * nothing mounted inside is walked. UID must have no process left: find is not safe against an owner that
 * renames as it walks.
 */
export const SWEEP_FILES = `
sweep_files() {
  local uid=$1 seconds=$2 keep=$3 place found=() skip=() n
  shift 3
  for place in "$@"; do [ -d "$place" ] && [ ! -L "$place" ] && found+=("$(realpath -e -- "$place")"); done
  if [ \${#found[@]} -eq 0 ]; then printf 'swept 0\\n'; return 0; fi
  # As find names it (real paths both), its glob characters escaped.
  if [ -n "$keep" ] && keep=$(realpath -e -- "$keep" 2>/dev/null); then
    keep=$(printf '%s' "$keep" | sed 's/[][*?\\\\]/\\\\&/g')
    skip=(! -path "$keep" ! -path "$keep/*")
  fi
  n=$(set -o pipefail; timeout -s KILL "$seconds" find -P "\${found[@]}" -xdev -mindepth 1 -depth -uid "$uid" \${skip[@]+"\${skip[@]}"} \\( ! -type d -o -empty \\) -delete -printf x 2>/dev/null | wc -c)
  [ $? -eq 137 ] && problem "the removal of uid $uid's files from $* ran out of its $seconds s: some may be left"
  printf 'swept %s\\n' "$n"
}
`

/**
 * The bash functions `give_back UID GID OWNER GROUP LABEL PATH...` and `left UID TOP LABEL PATH...`.
 * give_back makes what UID owns under each PATH, at any depth, OWNER:GROUP's, setuid and setgid bits cleared
 * first. chown -R and find -execdir walk folder by folder, so neither depth nor a path longer than PATH_MAX stops
 * them, and they follow no link. A file of UID's with other names (a hard link into /tmp) is first copied apart
 * under a short name (a name of 250 bytes has no room for a suffix): the chown would make those other names
 * OWNER's too, and the sweep would pass them by. One that cannot be copied (no space left) stays UID's, with its
 * other names. left prints one `problem` line naming (the first ten, relative to TOP, shell-quoted) what UID
 * still owns under the PATHs. LABEL names the PATHs in a problem line (it never holds a name of the agent's).
 */
export const GIVE_BACK = `
copy_apart='for f; do
  [ "$(stat -c %h -- "$f")" -gt 1 ] || continue
  t=$(mktemp -- ./.ralph-apart.XXXXXX) && { cp -p -- "$f" "$t" && mv -f -- "$t" "$f" && continue; rm -f -- "$t"; }
  stat -c %d:%i -- "$f"
done'
keep_uncopied='to=$1; shift
set -f; all=" $(printf "%s " $UNCOPIED)"
for f; do
  case "$all" in *" $(stat -c %d:%i -- "$f") "*) chown -h -- "$to" "$f" ;; esac
done'
give_back() {
  local uid=$1 gid=$2 owner=$3 group=$4 label=$5 uncopied
  shift 5
  find "$@" -uid "$uid" ! -type l -perm /6000 -execdir chmod ug-s -- {} + 2>/dev/null || problem "could not clear setuid bits in $label"
  uncopied=$(find "$@" -uid "$uid" -type f -links +1 -execdir bash -c "$copy_apart" copy-apart {} + 2>/dev/null)
  chown -R -h --from="$uid" -- "$owner:$group" "$@" 2>/dev/null
  [ -z "$uncopied" ] || UNCOPIED=$uncopied find "$@" -uid "$owner" -type f -links +1 -execdir bash -c "$keep_uncopied" keep "$uid:$gid" {} + 2>/dev/null
  return 0
}
left() {
  local uid=$1 top=$2 label=$3 n=0 entry kind links p names='' more=''
  shift 3
  while IFS= read -r -d '' entry; do
    n=$((n + 1))
    [ "$n" -le 10 ] || continue
    kind=\${entry%% *} entry=\${entry#* } links=\${entry%% *} p=\${entry#* }
    p=\${p#"$top"/}
    [ "\${#p}" -le 160 ] || p="\${p:0:70}...\${p: -70}"
    names+=" $(printf '%q' "$p")"
    [ "$kind" != f ] || [ "$links" -le 1 ] || names+=" (it has $links names: not copied apart)"
  done < <(find "$@" -uid "$uid" -printf '%y %n %p\\0' 2>/dev/null)
  [ "$n" -le 10 ] || more=" and $((n - 10)) more"
  [ "$n" -ne 1 ] || problem "1 entry of $label could not be given back and stays uid $uid's:$names"
  [ "$n" -le 1 ] || problem "$n entries of $label could not be given back and stay uid $uid's:$names$more"
}
`

export const PRIVILEGED = `
set -u
${SWEEP_FILES}
${GIVE_BACK}
shopt -s dotglob nullglob
fail() { printf 'error %s\\n' "$*"; exit 1; }
problem() { printf 'problem %s\\n' "$*"; }
as_agent() { setpriv --reuid="$uid" --regid="$gid" --clear-groups --no-new-privs -- "$@"; }
# The entries of the work tree, .git left out: it stays the owner's, readable only.
entries() { local e; for e in "$tree"/*; do [ "$e" = "$tree/.git" ] || printf '%s\\0' "$e"; done; }
holds=/run/ralph-action/agent-users
# Lets the agent's user ($uid, $gid) pass through every folder down to $1 (o+x: no listing); prints each opened.
pass() {
  local dirs=() d=$1
  while [ "$d" != / ] && [ -n "$d" ]; do dirs=("$d" "\${dirs[@]}"); d=$(dirname -- "$d"); done
  for d in "\${dirs[@]}"; do
    as_agent test -x "$d" && continue
    printf 'opened %s %s\\n' "$(stat -c %a -- "$d")" "$d"
    chmod o+x -- "$d" || fail "could not let $user pass through $d"
  done
}
# Whether PID:START names a process that is running (the start time tells a reused pid apart).
alive() {
  local stat rest
  stat=$(cat "/proc/\${1%%:*}/stat" 2>/dev/null) || return 1
  rest=\${stat##*) }
  set -- "\${1#*:}" $rest
  [ "$1" = "\${21}" ]
}
# Every process of USER is killed (kill -1 as that user), in rounds, so a fork loop cannot outrun it.
sweep() {
  local u g round
  u=$(id -u "$1" 2>/dev/null) || return 0
  g=$(id -g "$1")
  for round in 1 2 3 4 5 6 7 8 9 10; do
    setpriv --reuid="$u" --regid="$g" --clear-groups -- bash -c 'kill -s KILL -1' 2>/dev/null
    sleep 0.05
  done
}
# take USER HOLDER [WAS]: one taker at a time on this machine (flock), the hold kept while its holder lives.
# The folder is root's alone: no other user may open the lock file, and hold it to stall every run (flock).
take() {
  local file="$holds/$1" held
  mkdir -p "$holds" && chmod 0700 "$(dirname "$holds")" "$holds" && exec 9>>"$holds/.lock" &&
    flock -w 30 9 || fail "could not hold the user $1 in $holds"
  held=$(cat -- "$file" 2>/dev/null)
  if [ -n "$held" ] && [ "$held" != "$2" ] && [ "$held" != "\${3:-}" ]; then
    if alive "$held"; then
      printf 'busy %s\\n' "\${held%%:*}"
      exit 1
    fi
    # A dead run's leftovers die before its user is another run's.
    sweep "$1"
  fi
  printf '%s\\n' "$2" > "$file" || fail "could not hold the user $1 in $holds"
  exec 9>&-
}
step=$1; shift
if [ "$step" = prepare ]; then
  user=$1 home=$2 tree=$3 owner=$4 ownergroups=$5 program=$6 settings=$7 holder=$8; shift 8
  take "$user" "$holder"
  if ! id -u "$user" >/dev/null 2>&1; then
    out=$(useradd --system --user-group --no-create-home --home-dir "$home" --shell /usr/sbin/nologin "$user" 2>&1) ||
      fail "useradd could not create the user $user: $out"
  fi
  uid=$(id -u "$user") gid=$(id -g "$user")
  [ "$uid" != 0 ] && [ "$gid" != 0 ] || fail "the user $user is root or in the root group"
  [ "$uid" != "$owner" ] || fail "the user $user is the user the action runs as"
  [ "$(id -G "$user")" = "$gid" ] || fail "the user $user is in other groups ($(id -Gn "$user")), which may give it rights: the agent's user must be in its own group only"
  case ",$ownergroups," in *",$gid,"*) fail "the group of $user ($gid) is one of the action's own groups" ;; esac
  mkdir -p -m 0755 "$(dirname "$home")" && rm -rf -- "$home" && mkdir -m 0700 -- "$home" &&
    printf '[safe]\\n\\tdirectory = %s\\n' "$tree" > "$home/.gitconfig" || fail "could not make a fresh HOME for $user at $home"
  # The staged settings: links and special files never (staging copied none; this is the boundary's own check).
  if [ -n "$settings" ]; then
    cp -R -P --preserve=mode -- "$settings/." "$home/" && find "$home" -mindepth 1 ! -type f ! -type d -delete ||
      fail "could not copy the agent's settings into $home"
  fi
  chown -R "$uid:$gid" -- "$home" || fail "could not make a fresh HOME for $user at $home"
  printf 'user %s %s\\n' "$uid" "$gid"
  # Let the agent pass through every folder above the work tree and the files it must read (o+x: no listing).
  pass "$(dirname -- "$tree")"
  for r in "$@"; do pass "$r"; done
  # The work tree's content (what the action's user owns of it) becomes the agent's; the top folder stays the
  # owner's, shared with the agent's group and sticky, so the agent can add and remove its own entries but
  # never rename or remove .git. A file with other names (a hard link into a package store outside) stays the
  # owner's: giving it would give those names too, for the agent to write. By full path first (fast), then what
  # is left from its own folder (a path longer than PATH_MAX).
  mapfile -d '' -t found < <(entries)
  if [ \${#found[@]} -gt 0 ]; then
    find "\${found[@]}" -uid "$owner" ! \\( -type f -links +1 \\) -exec chown -h "$uid:$gid" -- {} + 2>/dev/null
    find "\${found[@]}" -uid "$owner" ! \\( -type f -links +1 \\) -execdir chown -h "$uid:$gid" -- {} + ||
      fail "could not give the work tree $tree to $user"
  fi
  printf 'top %s %s\\n' "$(stat -c %g -- "$tree")" "$(stat -c %a -- "$tree")"
  chgrp -- "$gid" "$tree" && chmod g+rwx,+t -- "$tree" || fail "could not share the work tree $tree with $user"
  if [ -n "$program" ] && ! as_agent test -x "$program"; then
    fail "the user $user cannot run the agent $program: install it where every user can run it (e.g. npm install -g, or the tool cache), or set isolation: none"
  fi
elif [ "$step" = claim ]; then
  take "$1" "$2" "$3"
elif [ "$step" = release ]; then
  uid=$1 gid=$2 home=$3 tree=$4 owner=$5 ownergroup=$6 topgid=$7 topmode=$8 user=$9 holder=\${10} seconds=\${11} folders=\${12}
  shift 12
  mapfile -d '' -t found < <(entries)
  [ \${#found[@]} -eq 0 ] || give_back "$uid" "$gid" "$owner" "$ownergroup" "the work tree $tree" "\${found[@]}"
  chgrp -- "$topgid" "$tree" && chmod -- "0$topmode" "$tree" || problem "could not restore the mode of $tree"
  while [ $# -ge 2 ]; do chmod -- "0$1" "$2" || problem "could not restore the mode of $2"; shift 2; done
  rm -rf -- "$home" || problem "could not remove $home"
  IFS=: read -r -a folders <<< "$folders"
  sweep_files "$uid" "$seconds" "$tree" "\${folders[@]}"
  if [ \${#found[@]} -gt 0 ]; then
    # A file kept for its other names, which went with the HOME or the sweep, has no other name now.
    find "\${found[@]}" -uid "$uid" ! \\( -type f -links +1 \\) -execdir chown -h "$owner:$ownergroup" -- {} + 2>/dev/null
    left "$uid" "$tree" "the work tree $tree" "\${found[@]}"
  fi
  [ "$(cat -- "$holds/$user" 2>/dev/null)" != "$holder" ] || rm -f -- "$holds/$user" || problem "could not let go of the user $user"
elif [ "$step" = lend ]; then
  uid=$1 gid=$2 dir=$3 user=$4
  pass "$(dirname -- "$dir")"
  chown -R -h "$uid:$gid" -- "$dir" || fail "could not lend $dir to $user"
elif [ "$step" = reclaim ]; then
  uid=$1 gid=$2 dir=$3 owner=$4 ownergroup=$5; shift 5
  give_back "$uid" "$gid" "$owner" "$ownergroup" "$dir" "$dir"
  left "$uid" "$dir" "$dir" "$dir"
  while [ $# -ge 2 ]; do chmod -- "0$1" "$2" || problem "could not restore the mode of $2"; shift 2; done
else
  fail "unknown step $step"
fi
`

/** `bash -c LAUNCHER ralph-agent PROGRAM ARGS...`, stdin: `NAME=value\0`… then an empty entry, then the program's input. */
export const LAUNCHER = `
for name in $(compgen -e); do unset -v "$name"; done 2>/dev/null
while IFS= read -r -d '' entry && [ -n "$entry" ]; do export "$entry" 2>/dev/null; done
exec "$@"
`

/** Every process of the user running this is killed (kill(-1) spares only the caller). */
export const KILL_ALL = 'kill -s KILL -1 2>/dev/null; exit 0'

/** `bash -c SIGNAL SIG PID...`: the signal to each pid (negative: a group) this user may signal. */
export const SIGNAL = 'kill -s "$0" -- "$@" 2>/dev/null; exit 0'
