tpmtrace-profile 1
name: microchip-attpm20-wolftpm
vendor: Microchip
chip: ATTPM20
measured-by: wolfSSL (wolfTPM benchmark)
source: wolfTPM README benchmark table (ATTPM20): CreatePrimary-derived ECC P-256 key 153 ms, ECDSA P-256 sign 58.7 ms
covers: CreatePrimary ECC P-256, Sign ECDSA P-256
lacks: everything else (PCR_Extend, sessions, contexts, GetRandom); no spread; firmware, bus and date not stated
transport-ms: 0
CreatePrimary      password       ecc-p256        mean=153     # wolfTPM README
Sign               password       ecc-p256.ecdsa  mean=58.7    # wolfTPM README
