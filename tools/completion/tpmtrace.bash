# bash completion for tpmtrace(1). Subcommands come from 'tpmtrace --help' and
# each subcommand's options from its own --help, so the completion cannot
# drift from the program.
_tpmtrace()
{
	local cur prev words cword
	_init_completion 2>/dev/null || {
		cur=${COMP_WORDS[COMP_CWORD]}
		prev=${COMP_WORDS[COMP_CWORD - 1]}
		words=("${COMP_WORDS[@]}")
		cword=$COMP_CWORD
	}
	local prog=${words[0]}
	if [ "$cword" -eq 1 ]; then
		local subs
		subs=$("$prog" --help 2>/dev/null | awk '/^Subcommands:/ {on=1; next} on && /^  [a-z]/ {print $1}')
		COMPREPLY=($(compgen -W "$subs --help --version" -- "$cur"))
		return
	fi
	local sub=${words[1]}
	case $prev in
	--policy)
		COMPREPLY=($(compgen -W "as-recorded password linux-6.10 linux-6.12 linux-6.12-no-pcr-integrity all" -- "$cur"))
		return ;;
	--payloads)
		COMPREPLY=($(compgen -W "none redacted full" -- "$cur"))
		return ;;
	--profile)
		COMPREPLY=($(compgen -W "$("$prog" profile list 2>/dev/null | awk 'NR>1 {print $1}')" -- "$cur")
			$(compgen -f -- "$cur"))
		return ;;
	--link)
		COMPREPLY=($(compgen -W "raw ether" -- "$cur"))
		return ;;
	--by)
		COMPREPLY=($(compgen -W "command origin" -- "$cur"))
		return ;;
	--emulate)
		COMPREPLY=($(compgen -W "$("$prog" profile list 2>/dev/null | awk 'NR>1 {print $1}')" -- "$cur")
			$(compgen -f -- "$cur"))
		return ;;
	--target)
		COMPREPLY=($(compgen -W "spawn device:/dev/tpmrm0 device:/dev/tpm0 swtpm: mssim: tabrmd" -- "$cur"))
		return ;;
	--db | -o | --output | --pcapng | --csv | --jsonl | --expect | --swtpm-state | --ftrace)
		COMPREPLY=($(compgen -f -- "$cur"))
		return ;;
	esac
	case $sub in
	import)
		if [ "$cword" -eq 2 ]; then
			COMPREPLY=($(compgen -W "pcap ima tcglog" -- "$cur"))
			return
		fi ;;
	profile)
		if [ "$cword" -eq 2 ]; then
			COMPREPLY=($(compgen -W "import export show list" -- "$cur"))
			return
		fi ;;
	esac
	if [[ $cur == -* ]]; then
		local opts
		opts=$("$prog" "$sub" --help 2>/dev/null | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u)
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
		return
	fi
	COMPREPLY=($(compgen -f -- "$cur"))
}
complete -F _tpmtrace tpmtrace
