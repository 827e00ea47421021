tpmtrace-profile 1
# Infineon SLB9670 as measured for the kernel's HMAC session work (see docs/profiles.md).
name: slb9670-linux-integrity
vendor: IFX
chip: SLB9670
firmware: not stated in the source
bus: SPI (tpm_tis_spi); TPM passed through to a Fedora 38 guest
measured-by: linux-integrity mailing list participant (ftrace function_graph, kernel 6.11-rc2)
date: 2024-08 (kernel 6.11-rc2)
source: linux-integrity list, thread "TPM HMAC (really) bad performance" (2024): per-command times on an SLB9670, kernel 6.11-rc2
source: wolfTPM README benchmark table: ECC P-256 key generation from CreatePrimary on SLB9670, 231 ms
source: TPMScan dataset (CHES 2024), IFX SLB9670 fw 7.85.17.51968: GetRandom 32 bytes, 4.0 ms average
covers: PCR_Extend (password and HMAC), ContextLoad, StartAuthSession (salted with the ECC null key), FlushContext; CreatePrimary ECC P-256 (wolfTPM); GetRandom 32 bytes without session (TPMScan)
lacks: ContextSave, ReadPublic, GetRandom with a session, trusted-key commands (Create/Load/Unseal); no spread: every figure is a single average
note: 12,313 IMA extends took 102.8 s without HMAC and 1,941.71 s with HMAC on this setup (the same thread); those totals include non-TPM time.
transport-ms: 0
# command          authorization  variant      figures in ms
PCR_Extend         password       -            mean=6.36    # linux-integrity thread
PCR_Extend         hmac           -            mean=24.36   # linux-integrity thread
ContextLoad        none           -            mean=36.98   # linux-integrity thread
StartAuthSession   none           salted-ecc   mean=84.75   # linux-integrity thread
FlushContext       none           -            mean=3.2     # linux-integrity thread
CreatePrimary      password       ecc-p256     mean=231     # wolfTPM README (SLB9670)
GetRandom          none           32b          mean=4       # TPMScan IFX SLB9670 7.85.17.51968
