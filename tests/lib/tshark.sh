# What tshark (Wireshark's TPM 2.0 dissector) reads from a capture (sourced by
# the pcap tests): tshark_msgs FILE prints one line per TPM message,
# "C cc len ns" for a command or "R rc len ns" for a response (len: the TCP
# payload length, ns: the frame time in nanoseconds since the epoch).
tshark_msgs() {
	tshark -r "$1" -T fields -E separator=/t -e frame.time_epoch -e tcp.len \
		-e tpm.req.cc -e tpm.resp.rc 2>/dev/null |
		awk -F'\t' '{ t = $1; sub(/\./, "", t); sub(/^0+/, "", t)
			if ($3 != "") print "C", $3, $2, t; else if ($4 != "") print "R", $4, $2, t }'
}
