/* Our command names against Wireshark's TPM 2.0 dissector (a real, independent
 * peer): `tshark -G values` lists the value strings of field tpm.req.cc as
 * "V<TAB>tpm.req.cc<TAB>0x17b<TAB>TPM2_CC_GetRandom". Every code tshark knows
 * must be in our table under the same name. tshark 4.0 knows 117 codes (up to
 * 0x198 ACT_SetTimeout); the newer ones are checked in test_tpm_cc.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/tpm/tpm_cc.h"
#include "testlib.h"

int main(void)
{
	char line[512];
	unsigned seen = 0;
	FILE *p = popen("tshark -G values 2>/dev/null", "r");

	if (!p)
		tl_skip("cannot run tshark");
	while (fgets(line, sizeof(line), p)) {
		char *f[4], *save = NULL, *s = line;
		int n = 0;
		line[strcspn(line, "\r\n")] = 0;
		while (n < 4 && (f[n] = strtok_r(s, "\t", &save)))
			s = NULL, n++;
		if (n < 4 || strcmp(f[0], "V") || strcmp(f[1], "tpm.req.cc"))
			continue;
		uint32_t cc = (uint32_t)strtoul(f[2], NULL, 0);
		const char *want = f[3];
		if (!strncmp(want, "TPM2_CC_", 8))
			want += 8;
		const char *ours = tpm_cc_name(cc);
		CHECK(ours && !strcmp(ours, want), "code 0x%x: tshark says %s, we say %s", cc, f[3],
		      ours ? ours : "(unknown)");
		CHECK(tpm_cc_from_name(f[3]) == cc, "from_name(%s) = 0x%x, want 0x%x", f[3],
		      tpm_cc_from_name(f[3]), cc);
		seen++;
	}
	int st = pclose(p);
	if (seen == 0)
		tl_skip(st ? "tshark not installed or failed"
			   : "this tshark has no TPM 2.0 dissector");
	/* Wireshark 4.0 lists every code of rev 1.59 plus the AC_, ACT_, CertifyX509
	 * and ECC_Encrypt/Decrypt additions; far fewer means we parsed the wrong field. */
	CHECK(seen >= 100, "only %u tpm.req.cc values from tshark", seen);
	printf("compared %u command codes with tshark\n", seen);
	return tl_finish("test_cc_names_tshark");
}
