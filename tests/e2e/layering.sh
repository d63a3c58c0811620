# DESIGN.md's module table is kept, and comments name files that exist:
# tests/layering.py passes on the tree, and fails on each kind of
# violation planted in a copy of it.
. "$FSCONC_TOP/tests/lib.sh"

if [ ! -x /usr/bin/python3 ]; then
	skip "the layering check" "/usr/bin/python3 not installed"
	exit 0
fi
check_py=$TOP/tests/layering.py
objs=${FSCONC_BUILD:-$TOP/build}/obj

# The tree as it is: includes, and circles over the build's objects.
if [ -d "$objs" ] && command -v nm >/dev/null 2>&1; then
	check "the tree keeps DESIGN.md's layering (includes, floors, circles, no cli/ file calling another, no stale path in a comment)" \
	    python3 "$check_py" --root "$TOP" --objs "$objs"
else
	check "the tree keeps DESIGN.md's layering (includes, no stale path in a comment)" \
	    python3 "$check_py" --root "$TOP"
	skip "no circle of files" "no objects in $objs or no nm"
fi

# planted NAME EXPECT: the check fails on the copy in $copy and names it.
planted() {
	if out=$(python3 "$check_py" --root "$copy" ${2:+--objs "$2"} 2>&1); then
		not_ok "planted: $1 is refused" "the check passed"
	elif printf '%s\n' "$out" | grep -qF "$3"; then
		ok "planted: $1 is refused"
	else
		not_ok "planted: $1 is refused" "$out"
	fi
}
# Every source outside build/: a comment may name one in tests/ or bench/.
fresh_copy() {
	copy=$(scratch)
	cp "$TOP/DESIGN.md" "$copy/"
	(cd "$TOP" && find . -name build -prune -o -name '.?*' -prune -o \
	    -name '*.[ch]' -print | tar -cf - -T -) | tar -xf - -C "$copy"
}

fresh_copy
echo '#include "md-setup/md_int.h"' >>"$copy/results/common.c"
planted "another module's private header" "" \
    "results/common.c: includes md-setup/md_int.h, a private header"

fresh_copy
echo '#include "harness/run.h"' >>"$copy/results/common.c"
planted "a module above" "" \
    "results/common.c: includes harness/run.h, but results/ may include only common"

fresh_copy
echo '#include "harness/run.h"' >>"$copy/harness/batch/batch.c"
planted "a subsystem above in the same module" "" \
    "harness/batch/batch.c: includes harness/run.h, but harness/batch/ may include only"

fresh_copy
echo '#include "run_int.h"' >>"$copy/harness/run/run.c"
echo '#include "harness/run/run_int.h"' >>"$copy/harness/campaign/control.c"
planted "another subsystem's private header" "" \
    "harness/campaign/control.c: includes harness/run/run_int.h, a private header"

fresh_copy
echo '/* nothing */' >"$copy/analysis/unlisted.h"
planted "a header the table does not list" "" \
    "analysis/unlisted.h: a header DESIGN.md's table does not list"

# A comment naming a file moved away, from the root or bare.
fresh_copy
n=$(($(wc -l <"$copy/results/common.c") + 1))
echo '/* the columns as harness/nowhere.c writes them */' >>"$copy/results/common.c"
planted "a comment naming a path not in the tree" "" \
    "results/common.c:$n: a comment names harness/nowhere.c, which is not in the tree"

fresh_copy
echo '/* see gone_helper.h */' >>"$copy/md-setup/loop.c"
planted "a comment naming a bare file not in the tree" "" \
    "a comment names gone_helper.h, which is not in the tree"

fresh_copy
printf 'static const char *pat = "/* x.c */";\n/* md-setup/loop.c, loop.c, os/signals.c */\n' \
    >>"$copy/results/common.c"
if out=$(python3 "$check_py" --root "$copy" 2>&1); then
	ok "a string is no comment; a file named from the root, bare or by its tail is found"
else
	not_ok "a string is no comment; a file named from the root, bare or by its tail is found" "$out"
fi

fresh_copy
sed -i 's/^| `db\/` |.*$/| `db\/` | **db.h** (db_int.h) | x | harness |/' "$copy/DESIGN.md"
if python3 "$check_py" --root "$copy" >/dev/null 2>&1; [ $? -eq 2 ]; then
	ok "planted: a row that may include a module above it is a table error"
else
	not_ok "planted: a row that may include a module above it is a table error"
fi

# A circle: two files that call each other.
if command -v cc >/dev/null 2>&1 && command -v nm >/dev/null 2>&1; then
	fresh_copy
	o=$(scratch)
	mkdir "$o/common"
	printf 'int pong(int);\nint ping(int n) { return n ? pong(n - 1) : 0; }\n' \
	    >"$o/a.c"
	printf 'int ping(int);\nint pong(int n) { return n ? ping(n - 1) : 1; }\n' \
	    >"$o/b.c"
	cc -c "$o/a.c" -o "$o/common/a.o" && cc -c "$o/b.c" -o "$o/common/b.o"
	planted "a circle of files" "$o" \
	    "circle of files: common/a.c <-> common/b.c"

	# A call up a floor: harness/os/ calls into harness/run/.
	fresh_copy
	o=$(scratch)
	mkdir -p "$o/harness/os" "$o/harness/run"
	printf 'int up(void);\nint low(void) { return up(); }\n' >"$o/a.c"
	printf 'int up(void) { return 1; }\n' >"$o/b.c"
	cc -c "$o/a.c" -o "$o/harness/os/a.o" &&
	    cc -c "$o/b.c" -o "$o/harness/run/b.o"
	planted "a call up a floor" "$o" \
	    "harness/os/a.c: calls up (harness/run/b.c), a floor above harness/os/"

	# A command calling another command's file, not through main.c.
	fresh_copy
	o=$(scratch)
	mkdir -p "$o/cli"
	printf 'int cmd_b_helper(void);\nint cmd_a(void) { return cmd_b_helper(); }\n' \
	    >"$o/a.c"
	printf 'int cmd_b_helper(void) { return 1; }\n' >"$o/b.c"
	printf 'int cmd_a(void);\nint main(void) { return cmd_a(); }\n' \
	    >"$o/m.c"
	cc -c "$o/a.c" -o "$o/cli/cmd_a.o" &&
	    cc -c "$o/b.c" -o "$o/cli/cmd_b.o" &&
	    cc -c "$o/m.c" -o "$o/cli/main.o"
	planted "a cli/ file calling another" "$o" \
	    "cli/cmd_a.c: calls cmd_b_helper (cli/cmd_b.c), another cli/ file"
	out=$(python3 "$check_py" --root "$copy" --objs "$o" 2>&1)
	if printf '%s\n' "$out" | grep -q "cli/main.c"; then
		not_ok "main.c, the dispatcher, may call the commands" "$out"
	else
		ok "main.c, the dispatcher, may call the commands"
	fi
else
	skip "planted: a circle of files" "no cc or nm"
fi
echo "1..$_t"
