#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot each test kernel under QEMU (TCG) with an initramfs holding kmem_ro.ko
# for that kernel and the static test binaries, run the groups listed in
# tests/vm/groups, and judge the result from the serial log (vmtest/README.md).
#
#   vmtest/run.sh                        # every group on every kernel
#   KERNELS=6.12 VM_GROUPS=core vmtest/run.sh
#   VM_GROUPS_FILE=vmtest/demo.groups VM_SHOW=1 vmtest/run.sh
#
# A suite is a static binary in $BUILD/vm/ or a script in vmtest/ or tests/vm/;
# a dynamically linked one (or a helper named in $BUILD/vm/<suite>.with)
# gets its interpreter and libraries copied in.
# Suites see VM_ACCEL (e.g. tcg-single), VM_DEBUG_KERNEL=1 on a debug kernel, and the host's FUZZ_* and BENCH_*
# variables in their environment.
# VM_SHOW=1 relays what the suites print.
# VM_SUITES=a,b runs only those suites (make check VM_SUITES=a,b);
# VM_INTERACTIVE=1 boots the first group on this terminal (make vm-shell).
# VM_RESULTS="GROUP=FILE ..." appends, after each run of GROUP, one dated
# line to FILE made of the guest's "@@<GROUP in capitals> " lines
# (vmtest/record.sh), e.g. VM_RESULTS=stress=tests/vm/stress-results.txt.
# VM_RUN_RECORD=FILE appends one dated line for the whole run to FILE: its
# commit, driver, kernels, counts and failed runs (make check-debug).
# Inputs (built by `make check-vm`): $BUILD/<kernel>/driver/kmem_ro.ko,
# $BUILD/<kernel>/testobj/kmem_ro_testobj.ko (known test objects) and
# $BUILD/vm/<suite> for every suite a group names; for a group whose extra
# column is +udev-root=SUITE, $KMEM_RO_CACHE/udev-root/SUITE/root.cpio
# (vmtest/build-root.sh udev SUITE) and `make install` in $BUILD/vm/install.
# A group whose extra column has +virtio-mem=SIZEM gets a virtio-mem device
# (resized when the guest prints "@@VMEM_REQUEST BYTES": virtio-mem-qmp.py)
# and the kernel's virtio_mem module from $KMEM_RO_CACHE/kernels/<kernel>.
# VM_EXTRA_CPIO="A.cpio ..." appends those archives to every initramfs,
# last (their files win): a tree too large or foreign for the stage, such as
# tests/vm/crash.sh's crash, its Debian release's libraries and vmlinux.
# VM_QEMU_ARGS="..." adds QEMU options to every boot, e.g. "-gdb tcp::1234"
# to look into a hung guest with gdb and the kernel's vmlinux (boot it with
# nokaslr in the group's extra column).
# VM_RETRY_BOOTS=N: a "+retry" group boots again while it fails, up to N
# more times (3).
# Logs: $BUILD/vm-logs/.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
BUILD=${BUILD:-$top/build}
CACHE=${KMEM_RO_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kmem_ro}
KERNELS=${KERNELS:-"6.1 6.12 7.3"}
GROUPS_WANTED=${VM_GROUPS:-}
GROUPS_FILE=${VM_GROUPS_FILE:-$top/tests/vm/groups}
TIMEOUT=${VM_TIMEOUT:-900}
RETRY_BOOTS=${VM_RETRY_BOOTS:-3}
MEM=${VM_MEM:-1024}
BAD='BUG:|WARNING:|Oops|Call Trace|UBSAN|KASAN|general protection|Kernel panic'

# The terminal, for VM_INTERACTIVE (the loop below reads the groups file).
exec 3<&0
logs=${VM_LOGS:-$BUILD/vm-logs}
mkdir -p "$logs"
rm -f "$logs/failures"
# The commit run records name (record.sh), read before any is appended.
VM_COMMIT=$("$here/commit.sh")
# ...and the last commit that changed the driver or its ABI: the code the
# record is evidence for, when later commits touched only other files.
VM_DRIVER_COMMIT=$(git -C "$here" log -1 --format=%h -- "$top/driver" "$top/uapi" 2>/dev/null || echo unknown)
export VM_COMMIT VM_DRIVER_COMMIT
total_pass=0 total_fail=0 failed_runs=()

say() { printf 'vm: %s\n' "$*"; }

# stage_kernel_modules kernel stage module...: the kernel's own modules
# (Debian's build, vmtest/fetch-kernels.sh) in $stage/lib/kernel-modules/,
# each after the modules its symbols come from, uncompressed (busybox's
# insmod reads ELF), with their load order in "order" for /init.  A module
# built into the kernel is skipped.
stage_kernel_modules() {
	local kernel=$1 stage=$2 release dir d builtin=() order=()
	shift 2
	release=$(cat "$CACHE/kernels/$kernel/release")
	dir=
	for d in "$CACHE/kernels/$kernel"/root/{usr/,}lib/modules/"$release" \
		 "$(cat "$CACHE/kernels/$kernel/kdir" 2>/dev/null)"; do
		[ -f "$d/modules.builtin" ] && { dir=$d; break; }
	done
	[ -n "$dir" ] || { say "$kernel: no modules.builtin (vmtest/fetch-kernels.sh)"; return 1; }
	mapfile -t builtin < <(sed -E 's|.*/||; s|\.ko$||; s|-|_|g' "$dir/modules.builtin")
	mkdir -p "$stage/lib/kernel-modules"
	add_module() {
		local name=${1//-/_} file dep
		[[ " ${order[*]} ${builtin[*]} " == *" $name "* ]] && return 0
		file=$(find "$dir/" -name "$name.ko" -o -name "$name.ko.xz" | head -n 1)
		[ -n "$file" ] || { say "$kernel: no module $name in $dir"; return 1; }
		for dep in $(modinfo -F depends "$file" | tr , ' '); do
			add_module "$dep" || return 1
		done
		case $file in
		*.xz) xz -dc "$file" ;;
		*) cat "$file" ;;
		esac > "$stage/lib/kernel-modules/$name.ko" || return 1
		order+=("$name")
	}
	for d in "$@"; do
		add_module "$d" || return 1
	done
	printf '%s\n' "${order[@]}" > "$stage/lib/kernel-modules/order"
}

# kernel accel root suites... -> path.  root: - for busybox alone, or a
# base tree (vmtest/build-root.sh udev) whose cpio goes first.
# VMEM (+virtio-mem): stage virtio_mem and its transport's modules.
make_initramfs() {
	local kernel=$1 accel=$2 root=$3 stage l g h d host_files=() same=() pairs=() elf=() libs=()
	local -A into=() seen=()
	shift 3
	stage=$(mktemp -d "$BUILD/vm-stage.XXXXXX")
	chmod 755 "$stage"	# the guest's / : other users must traverse it
	if [ "$root" != - ]; then
		# A directory entry would replace the base's bin -> usr/bin
		# (and lib, sbin): the stage gets the same links instead.
		for l in "$root/root"/*; do
			[ -L "$l" ] || continue
			mkdir -p "$stage/$(readlink "$l")"
			cp -P "$l" "$stage/"
		done
		tar -C "$BUILD/vm/install" -c . | tar -C "$stage" -x --keep-directory-symlink ||
			return 1
	fi
	mkdir -p "$stage/bin" "$stage/lib" "$stage/tests"
	cp /bin/busybox "$stage/bin/busybox"
	cp "$here/init" "$stage/init"
	chmod 755 "$stage/init"
	cp "$BUILD/$kernel/driver/kmem_ro.ko" "$BUILD/$kernel/testobj/kmem_ro_testobj.ko" "$stage/lib/"
	if [ -n "${VMEM:-}" ]; then
		# virtio_pci: the transport (a module on 6.1)
		stage_kernel_modules "$kernel" "$stage" virtio_pci virtio_mem >&2 || return 1
	fi
	for s in "$@"; do
		if [ -f "$here/$s" ]; then
			cp "$here/$s" "$stage/tests/"
		elif [ -f "$top/tests/vm/$s" ]; then
			cp "$top/tests/vm/$s" "$stage/tests/"
		else
			cp "$BUILD/vm/$s" "$stage/tests/" || return 1
		fi
		# Helpers a suite names in $BUILD/vm/<suite>.with go next to it;
		# an absolute path is the host's file, at the same path;
		# HOST=GUEST puts the host's file at the guest's path (the tree's
		# own files: the tree may lie under /tmp, a tmpfs in the guest).
		if [ -f "$BUILD/vm/$s.with" ]; then
			for l in $(cat "$BUILD/vm/$s.with"); do
				case $l in
				/*=/*) pairs+=("$l") ;;
				/*) [ -n "${seen[$l]:-}" ] || same+=("$l"); seen[$l]=1 ;;
				*) cp "$BUILD/vm/$l" "$stage/tests/" || return 1 ;;
				esac
			done
		fi
	done
	# Copied a directory at a time, and the ELF files found with bash's
	# own read: python_test names about 800 files, and a fork or two per
	# file took 40 s of a loaded 2-core host per initramfs.
	[ ${#same[@]} -eq 0 ] || cp -L --parents -t "$stage" "${same[@]}" || return 1
	for l in "${same[@]}"; do host_files+=("$stage$l"); done
	for l in "${pairs[@]}"; do
		g=${l#*=} h=${l%%=*}
		host_files+=("$stage$g")
		if [ "${g##*/}" = "${h##*/}" ]; then
			into[${g%/*}]+=" ${h}"
		else
			mkdir -p "$stage${g%/*}" && cp -L "$h" "$stage$g" || return 1
		fi
	done
	for d in "${!into[@]}"; do
		# shellcheck disable=SC2086	# host paths: no spaces (.with splits on them)
		mkdir -p "$stage$d" && cp -L -t "$stage$d" ${into[$d]} || return 1
	done
	# Dynamically linked files bring their ELF interpreter and libraries,
	# at the host's paths (ldd fails on static binaries and scripts).
	for s in "$stage"/tests/* "${host_files[@]}"; do
		IFS= read -r -d '' -n 4 l < "$s"
		[[ $l == $'\x7f'ELF ]] && elf+=("$s")
	done
	if [ ${#elf[@]} -gt 0 ]; then
		# its lines for libraries start with a tab (a header line names
		# each file when there are several)
		mapfile -t libs < <(ldd "${elf[@]}" 2>/dev/null | grep $'^\t' | grep -o '/[^ ]*' | sort -u)
		[ ${#libs[@]} -eq 0 ] || cp -L --parents -t "$stage" "${libs[@]}" || return 1
	fi
	[ -e "$BUILD/vm/kmemctl" ] && cp "$BUILD/vm/kmemctl" "$stage/bin/"
	echo "$*" > "$stage/tests/list"
	echo "export VM_ACCEL=tcg-${accel%+retry}" > "$stage/tests/env"
	# Sanitizers make a debug kernel several times slower: Check's
	# per-test timeouts scale with it.
	[[ $kernel == *-debug ]] &&
		printf 'export CK_TIMEOUT_MULTIPLIER=4 VM_DEBUG_KERNEL=1\n' >> "$stage/tests/env"
	# The host's FUZZ_* settings reach the fuzzer (make fuzz DURATION=...),
	# BENCH_* the benchmarks.
	for v in $(compgen -e -X '!FUZZ_*') $(compgen -e -X '!BENCH_*'); do
		printf 'export %s=%q\n' "$v" "${!v}"
	done >> "$stage/tests/env"
	{
		[ "$root" = - ] || cat "$root/root.cpio"
		(cd "$stage" && find . | cpio -o -H newc -R 0:0 --quiet)
		for l in ${VM_EXTRA_CPIO:-}; do cat "$l"; done
	} > "$stage.cpio"
	rm -rf "$stage"
	echo "$stage.cpio"
}

# boot kernel accel cmdline log initrd [qemu-trace-event [virtio-mem-size]]
boot() {
	local kernel=$1 accel=$2 extra=$3 log=$4 initrd=$5 tcg=tcg,thread=single trace=()
	local mem=$MEM vmem=() qmp_pid='' qmp rc
	# QEMU's own trace of an event (log backend), to $log.trace
	[ -n "${6:-}" ] && trace=(-trace "$6" -D "$log.trace")
	# +virtio-mem=SIZE: a virtio-mem device of SIZE (MiB), nothing plugged
	# at boot, and a QMP socket through which virtio-mem-qmp.py sets its
	# requested size when the guest prints "@@VMEM_REQUEST BYTES".
	if [ -n "${7:-}" ]; then
		mem="$MEM,maxmem=$((MEM + ${7%M}))M"
		# in /tmp: a socket's path has at most 107 bytes
		qmp=$(mktemp -u "${TMPDIR:-/tmp}/kmem_ro-qmp.XXXXXX")
		# shellcheck disable=SC2054	# QEMU's options: commas inside words
		vmem=(-object "memory-backend-ram,id=vmem0,size=$7"
		      -device virtio-mem-pci,id=vm0,memdev=vmem0,requested-size=0
		      -qmp "unix:$qmp,server=on,wait=off")
		"$here/virtio-mem-qmp.py" "$qmp" "$log" &
		qmp_pid=$!
	fi
	# watchdog_thresh=60 (its maximum): a host this loaded can stall an
	# emulated CPU for the default 20 s soft-lockup limit (seen once at
	# boot); a real lockup still reports.  no_timer_check: the IO-APIC
	# timer check (timer_irq_works(), arch/x86/kernel/apic/io_apic.c)
	# counts ticks across a short busy wait, which a loaded host's TCG can
	# starve: "IO-APIC + timer doesn't work!" panics were seen at boot,
	# before any kmem_ro code ran.
	# A debug kernel boots with 4-level paging (no5lvl): 7.3's
	# identify_cpu() zeroes boot_cpu_data's capabilities with interrupts
	# on (arch/x86/kernel/cpu/common.c: memset(&c->x86_capability) in
	# identify_cpu, reached from arch_cpu_finalize_init after start_kernel's
	# local_irq_enable).  An interrupt in that window sees no LA57, so
	# KASAN's shadow bounds (__VIRTUAL_MASK_SHIFT) shrink to 47 bits and
	# every direct-map access reports "wild-memory-access".  Debian's
	# kernels (no KASAN) keep 5-level paging, as the host's CPU offers it.
	# Multi-threaded TCG races with the kernel's own text patching (int3
	# oopses at boot were seen here): two vCPUs, one host thread, unless
	# a group asks for mttcg.
	[ "${accel%+retry}" = mttcg ] && tcg=tcg
	[ "$extra" = - ] && extra=
	extra=${extra//,/ }	# several arguments: comma-separated in tests/vm/groups
	[[ $kernel == *-debug ]] && extra="no5lvl $extra"
	timeout "$TIMEOUT" qemu-system-x86_64 -accel "$tcg" -cpu max -smp 2 \
		-m "$mem" -display none -monitor none -no-reboot "${trace[@]}" "${vmem[@]}" ${VM_QEMU_ARGS:-} \
		-serial "file:$log" \
		-kernel "$CACHE/kernels/$kernel/vmlinuz" -initrd "$initrd" \
		-append "console=ttyS0 ${VM_QUIET-quiet} panic=-1 oops=panic watchdog_thresh=60 no_timer_check $extra" </dev/null
	rc=$?
	# the helper ends when QEMU closes the socket
	[ -n "$qmp_pid" ] && { wait "$qmp_pid"; rm -f "$qmp"; }
	return $rc
}

# judge kernel group log suites... ; prints, counts, returns 0 if clean
judge() {
	local kernel=$1 group=$2 log=$3 ok=0 s line c f e
	shift 3
	grep -q '^@@DONE' "$log" || { say "$kernel/$group: guest did not finish (timeout or crash)"; ok=1; }
	grep -q '^@@INSMOD rc=0' "$log" || { say "$kernel/$group: insmod failed"; ok=1; }
	grep -q '^@@TESTOBJ rc=0' "$log" || { say "$kernel/$group: test objects failed to load"; ok=1; }
	if grep -a '^@@KMOD ' "$log" | grep -vq ' rc=0'; then
		say "$kernel/$group: a kernel module failed to load:"
		grep -a '^@@KMOD ' "$log" | grep -v ' rc=0' | sed 's/^/    /'
		ok=1
	fi
	if grep -q '^@@RMMOD' "$log" && ! grep -q '^@@RMMOD rc=0' "$log"; then
		say "$kernel/$group: rmmod failed (leaked fd, mapping or probe?)"; ok=1
	fi
	for s in "$@"; do
		grep -aqE "^@@TEST $s rc=0([^0-9]|$)" "$log" || { say "$kernel/$group: $s failed"; ok=1; }
	done
	# Check's summary lines, relayed to the host
	while read -r line; do
		printf 'vm: %s/%s: %s\n' "$kernel" "$group" "$line"
		c=$(sed -E 's/.*Checks: ([0-9]+).*/\1/' <<<"$line")
		f=$(sed -E 's/.*Failures: ([0-9]+).*/\1/' <<<"$line")
		e=$(sed -E 's/.*Errors: ([0-9]+).*/\1/' <<<"$line")
		total_pass=$((total_pass + c - f - e))
		total_fail=$((total_fail + f + e))
	done < <(grep -aE '^[0-9]+%: Checks: [0-9]+, Failures: [0-9]+, Errors: [0-9]+' "$log" | tr -d '\r')
	# "@@TRACE_ABSENT ERE": a device access the guest says must not
	# happen, looked for in QEMU's trace (+qemu-trace=EVENT)
	while read -r line; do
		if [ ! -f "$log.trace" ]; then
			say "$kernel/$group: @@TRACE_ABSENT but no QEMU trace (+qemu-trace=EVENT)"; ok=1
		elif grep -aEq -- "$line" "$log.trace"; then
			say "$kernel/$group: QEMU trace shows what must not happen: $line"
			grep -aE -m 3 -- "$line" "$log.trace" | sed 's/^/    /'
			ok=1
		fi
	done < <(sed -n 's/^@@TRACE_ABSENT //p' "$log" | tr -d '\r')
	grep -aE '^[^@].*:[0-9]+:[EF]:' "$log" | tr -d '\r' | sed "s|^|vm: $kernel/$group: |"
	if grep -aEq "$BAD" "$log"; then
		say "$kernel/$group: kernel log reports a problem:"
		grep -aE -m 20 "$BAD" "$log" | sed 's/^/    /'
		ok=1
	fi
	return $ok
}

# One boot of one group on one kernel: its verdict and Check counts go to
# $logs/$kernel-$group.result, what it prints to $logs/$kernel-$group.out.
run_one() {
	local kernel=$1 group=$2 accel=$3 extra=$4 root=- cmdline initrd start rc verdict log trace=
	local vmem_size='' words=() word secs staged
	shift 4
	start=$(date +%s)
	log=$logs/$kernel-$group.log
	rm -f "$log" "$log".[0-9]
	total_pass=0 total_fail=0
	rm -f "$log.trace"
	# extra: comma-separated kernel command-line words and +OPTION=VALUE
	# words for the harness (read, not globbed: slub_debug=FZP,kmalloc-cg-*)
	[ "$extra" = - ] || IFS=, read -ra words <<<"$extra"
	cmdline=
	for word in "${words[@]}"; do
		case $word in
		# QEMU traces EVENT to $log.trace (judged by the guest's
		# @@TRACE_ABSENT lines)
		+qemu-trace=*) trace=${word#+qemu-trace=} ;;
		# boot that suite's Debian root with systemd and udev and
		# `make install` laid over it (both made by make vm-root)
		+udev-root=*)
			[[ $word =~ ^\+udev-root=[a-z]+$ ]] ||
				{ say "$group: '$word': want +udev-root=SUITE"; return 1; }
			root=$CACHE/udev-root/${word#+udev-root=}
			[ -s "$root/root.cpio" ] && [ -d "$BUILD/vm/install" ] ||
				{ say "$group: no $root/root.cpio or $BUILD/vm/install: run make vm-root"; return 1; }
			;;
		# a virtio-mem device of SIZE MiB, resized at the guest's
		# request, and the kernel's virtio_mem module in the initramfs
		+virtio-mem=*)
			[[ $word =~ ^\+virtio-mem=[1-9][0-9]*M$ ]] ||
				{ say "$group: '$word': want +virtio-mem=SIZEM (MiB)"; return 1; }
			vmem_size=${word#+virtio-mem=}
			;;
		# groups sharing one boot (joined when the queue is made)
		+boot=*) ;;
		+*) say "$group: unknown harness option '$word'"; return 1 ;;
		*) cmdline+=${cmdline:+,}$word ;;
		esac
	done
	initrd=$(VMEM=$vmem_size make_initramfs "$kernel" "$accel" "$root" "$@") ||
		{ say "missing test binaries or modules"; return 1; }
	staged=$(date +%s)
	boot "$kernel" "$accel" "${cmdline:--}" "$log" "$initrd" "$trace" "$vmem_size"
	rc=$?
	# A group marked "+retry" in its accel column depends on where one
	# boot's allocator puts pages (alias_test): up to RETRY_BOOTS more
	# boots while it fails, and only the last is judged.
	for ((try = 1; try <= RETRY_BOOTS; try++)); do
		if [[ $accel != *+retry ]] || (judge "$kernel" "$group" "$log" "$@" >/dev/null); then
			break
		fi
		say "$kernel/$group: boot $try failed, booting again (+retry; its log: $log.$try)"
		mv "$log" "$log.$try"
		boot "$kernel" "$accel" "${cmdline:--}" "$log" "$initrd" "$trace" "$vmem_size"
		rc=$?
	done
	rm -f "$initrd"
	[ -n "${VM_SHOW:-}" ] && sed -n '/^@@RUN/,/^@@TEST/{/^@@/d;p}' "$log" | tr -d '\r'
	[ $rc -eq 124 ] && say "$kernel/$group: timed out after ${TIMEOUT}s"
	# The run's wall time, its initramfs and boots (+retry's too) included:
	# in $logs/times with its start and end from the whole run's start and
	# the time its initramfs took (times.sh).
	secs=$(( $(date +%s) - start ))
	echo "$kernel $group $secs $(( start - run_start )) $(( start + secs - run_start ))" \
	     "$(( staged - start ))" >> "$logs/times"
	if judge "$kernel" "$group" "$log" "$@"; then
		verdict=pass
		say "$kernel/$group: ok (${secs}s, $(sed -n 's/^@@BOOTED //p' "$log" | tr -d '\r'))"
	else
		verdict=fail
		say "$kernel/$group: FAILED (${secs}s); guest log kept in $log"
	fi
	for r in ${VM_RESULTS:-}; do
		[ "${r%%=*}" = "$group" ] &&
			"$here/record.sh" "${group^^}" "$log" "$group" "$verdict" >> "${r#*=}"
	done
	echo "$verdict $total_pass $total_fail" > "$logs/$kernel-$group.result"
}

# Print a finished run's output and add up its counts.
collect() {
	local kernel=$1 group=$2 verdict p f
	cat "$logs/$kernel-$group.out"
	read -r verdict p f < "$logs/$kernel-$group.result" 2>/dev/null || verdict=fail p=0 f=0
	total_pass=$((total_pass + p)) total_fail=$((total_fail + f))
	if [ "$verdict" != pass ]; then
		failed_runs+=("$kernel/$group")
		# why, kept for the recap at the end (a CI log shows its tail)
		grep -v -e ': [0-9]*%: Checks: ' -e ': FAILED ([0-9]*s); guest log kept' \
			"$logs/$kernel-$group.out" | head -n 12 >> "$logs/failures"
	fi
	rm -f "$logs/$kernel-$group.out" "$logs/$kernel-$group.result"
}

# VM_SUITES=a,b: only those suites, each in its group's boot (a
# group none of them is in is skipped), in the group's order.
want_suites() {
	local s out=()
	for s in "$@"; do
		[[ ,$VM_SUITES, == *,$s,* ]] && out+=("$s")
	done
	echo "${out[*]}"
}
if [ -n "${VM_SUITES:-}" ]; then
	for s in ${VM_SUITES//,/ }; do
		grep -v '^#' "$GROUPS_FILE" | awk '{ for (i = 5; i <= NF; i++) print $i }' |
			grep -qx "$s" || { say "VM_SUITES: no suite $s in $GROUPS_FILE"; exit 1; }
	done
fi

# make vm-shell: the first group's initramfs, the serial console on this
# terminal, no time limit, nothing judged.
interactive() {
	local kernel=$1 accel=$2 initrd
	shift 4
	initrd=$(make_initramfs "$kernel" "$accel" - "$@") || { say "missing test binaries"; exit 1; }
	qemu-system-x86_64 -accel tcg,thread=single -cpu max -smp 2 -m "$MEM" \
		-display none -no-reboot -serial mon:stdio \
		-kernel "$CACHE/kernels/$kernel/vmlinuz" -initrd "$initrd" \
		-append "console=ttyS0 quiet panic=-1" <&3
	rm -f "$initrd"
	exit 0
}

# VM_JOBS boots at once (default: one per host core; each TCG guest runs
# on one host thread).  Benchmarks run one at a time (bench/run.sh).
# VM_BESIDE=PID: one boot fewer while that process runs (make check's host
# steps beside the VM suite, which keep about one core busy: scripts/check.sh).
JOBS=${VM_JOBS:-$(nproc)}
slots() {
	if [ -n "${VM_BESIDE:-}" ] && [ "$JOBS" -gt 1 ] && kill -0 "$VM_BESIDE" 2>/dev/null; then
		echo $((JOBS - 1))
	else
		echo "$JOBS"
	fi
}
# Groups whose extra column has the same +boot=NAME share one boot per
# kernel, their suites in the file's order, at the first one's place in the
# queue: a run named NAME (its log KERNEL-NAME.log) when more than one of
# them is wanted, else the group's own.  They must agree on accel and extra.
runs=()
declare -A joint=() joint_line=()
while read -r group kernels accel extra suites; do
	[[ -z $group || $group == \#* ]] && continue
	[ -n "$GROUPS_WANTED" ] && [[ " $GROUPS_WANTED " != *" $group "* ]] && continue
	if [ -n "${VM_SUITES:-}" ]; then
		# shellcheck disable=SC2086	# the suites column splits
		suites=$(want_suites $suites)
		[ -n "$suites" ] || continue
	fi
	for kernel in $KERNELS; do
		# A debug build (7.3-debug) runs the groups of its series, and
		# those that name it (the debug kernel's own: faultinj).
		[[ ,$kernels, == *,${kernel%-debug},* || ,$kernels, == *,$kernel,* ]] || continue
		if [[ ,$extra, =~ ,\+boot=([a-z0-9_-]+), ]]; then
			name=${BASH_REMATCH[1]}
			if [ -n "${joint[$kernel/$name]:-}" ]; then
				i=${joint[$kernel/$name]}
				read -r _ _ a e joined <<<"${runs[$i]}"
				[ "$a $e" = "$accel $extra" ] || {
					say "$group: +boot=$name with accel or extra other than ${joint_line[$name]}'s"
					exit 1
				}
				runs[i]="$kernel $name $accel $extra $joined $suites"
				continue
			fi
			joint[$kernel/$name]=${#runs[@]}
			joint_line[$name]=$group
		fi
		runs+=("$kernel $group $accel $extra $suites")
	done
done < "$GROUPS_FILE"

if [ -n "${VM_INTERACTIVE:-}" ] && [ ${#runs[@]} -gt 0 ]; then
	# shellcheck disable=SC2086 # kernel group accel extra suites...
	interactive ${runs[0]}
fi

declare -A pending=()
rm -f "$logs/times"
run_start=$(date +%s)
for r in "${runs[@]}"; do
	read -r kernel group accel extra suites <<<"$r"
	while [ "$(jobs -rp | wc -l)" -ge "$(slots)" ]; do
		# polled while VM_BESIDE runs: its end frees a slot too
		if [ "$(slots)" -lt "$JOBS" ]; then sleep 1; else wait -n; fi
	done
	# shellcheck disable=SC2086 # suites: one per word
	run_one "$kernel" "$group" "$accel" "$extra" $suites > "$logs/$kernel-$group.out" 2>&1 &
	pending[$!]="$kernel $group"
	# Print runs in the order they finish, as soon as they do.
	for pid in "${!pending[@]}"; do
		kill -0 "$pid" 2>/dev/null && continue
		wait "$pid"
		collect ${pending[$pid]}
		unset "pending[$pid]"
	done
done
for pid in "${!pending[@]}"; do
	wait "$pid"
	collect ${pending[$pid]}
done

# where the time went (vmtest/times.sh)
[ ${#runs[@]} -gt 0 ] && "$here/times.sh" "$logs" 10 | sed 's/^times:/vm:/'
echo "vm: ${total_pass} passed, ${total_fail} failed"
if [ -n "${VM_RUN_RECORD:-}" ]; then
	echo "date=$(date -u +%Y-%m-%d) commit=$VM_COMMIT driver=$VM_DRIVER_COMMIT" \
	     "kernels=${KERNELS// /,} runs=${#runs[@]} passed=$total_pass failed=$total_fail" \
	     "result=$([ ${#failed_runs[@]} -eq 0 ] && echo pass || echo fail)" \
	     "failed_runs=$(IFS=,; echo "${failed_runs[*]:-none}")" >> "$VM_RUN_RECORD"
fi
if [ ${#failed_runs[@]} -gt 0 ]; then
	say "failed runs: ${failed_runs[*]}; why:"
	sed 's/^/    /' "$logs/failures"
	exit 1
fi
exit 0
