tpmtrace-profile 1
# The shipped slb9670-linux-integrity profile with every figure divided by 16
# (test_emulate.sh and tools/bench emulate), plus 0.4 ms for what it lacks.
name: slb9670-scaled-16
chip: SLB9670 (figures / 16)
source: model/profiles/slb9670-linux-integrity.profile, every figure divided by 16
transport-ms: 0
PCR_Extend         password  -           mean=0.4
PCR_Extend         hmac      -           mean=1.52
ContextLoad        none      -           mean=2.31
StartAuthSession   none      salted-ecc  mean=5.3
FlushContext       none      -           mean=0.4
CreatePrimary      password  ecc-p256    mean=14.4
GetRandom          *         -           mean=0.4
GetCapability      none      -           mean=0.4
PCR_Read           none      -           mean=0.4
Startup            none      -           mean=0.4
ContextSave        none      -           mean=0.4
