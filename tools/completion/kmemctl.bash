# SPDX-License-Identifier: GPL-2.0
# bash completion for kmemctl(1): verbs, their options, symbol names from
# /proc/kallsyms where a verb takes an address, PIDs for pagemap.
# Installed as /usr/share/bash-completion/completions/kmemctl.
# shellcheck disable=SC2207	# COMPREPLY=($(compgen ...)): the bash-completion idiom

_kmemctl_symbols()
{
	[ ${#1} -ge 2 ] || return 0	# no 100k-name lists on an empty word
	[ -r /proc/kallsyms ] || return 0
	COMPREPLY+=($(awk -v p="$1" 'index($3, p) == 1 { print $3 }' /proc/kallsyms 2>/dev/null | sort -u))
}

_kmemctl()
{
	local cur prev words cword
	_init_completion || return

	local verbs="info sym read struct list modules dump ps pagemap probe watch"
	local i verb='' sub='' nargs=0
	for ((i = 1; i < cword; i++)); do
		case ${words[i]} in
		-d | --device) ((i++)) ;;
		-*) ;;
		*)	if [ -z "$verb" ]; then
				verb=${words[i]}
			elif [ "$verb" = probe ] && [ -z "$sub" ]; then
				sub=${words[i]}
			else
				((nargs++))
			fi ;;
		esac
	done

	case $prev in
	-d | --device) _filedir; return ;;
	-o | --output | -f | --file) _filedir; return ;;
	-b | --backend) COMPREPLY=($(compgen -W "kcore mmap readv walk" -- "$cur")); return ;;
	-i | --interval | -c | --count | -t | --top | -n | --depth | --fields | --loop | -l) return ;;
	--node) _kmemctl_symbols "$cur"; return ;;
	esac

	if [ -z "$verb" ]; then
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "--device --json --help --version" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$verbs" -- "$cur"))
		fi
		return
	fi

	local opts="--help"
	case $verb in
	info | sym | modules) opts+=" --json" ;;
	read) opts+=" --raw --json" ;;
	struct) opts+=" --depth --json --type-only" ;;
	list) opts+=" --fields --json --node" ;;
	dump) opts+=" --output --json" ;;
	ps) opts+=" --backend --json --loop --threads --pid --comm --state" ;;
	pagemap) opts+=" --json --summary" ;;
	probe) opts+=" --file --interval --count --top --json --verbose" ;;
	watch) opts+=" --count --json --modules --snapshots" ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
		return
	fi
	case $verb in
	sym) _kmemctl_symbols "$cur" ;;
	read | dump) [ $nargs -eq 0 ] && _kmemctl_symbols "$cur" ;;
	struct | list) [ $nargs -eq 1 ] && _kmemctl_symbols "$cur" ;;
	pagemap) [ $nargs -eq 0 ] && _pids ;;
	probe)	if [ -z "$sub" ]; then
			COMPREPLY=($(compgen -W "top count list" -- "$cur"))
		elif [ "$sub" != list ]; then
			_kmemctl_symbols "$cur"
		fi ;;
	esac
} &&
	complete -F _kmemctl kmemctl
