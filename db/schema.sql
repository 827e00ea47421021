-- tpmtrace database schema, version 5 (docs/schema.md describes every column).
-- Times are nanoseconds of CLOCK_MONOTONIC on the recording host unless noted.
PRAGMA application_id = 1414548820; -- 0x54504D54, "TPMT"
PRAGMA user_version = 5;

CREATE TABLE meta (
	key TEXT PRIMARY KEY,
	value TEXT
);

-- One row per recording, replay run or import.
CREATE TABLE trace (
	id INTEGER PRIMARY KEY,
	name TEXT,
	kind TEXT NOT NULL,                -- record | replay | import | derived
	source TEXT,                       -- backend, replay target or imported file
	started_at TEXT,                   -- wall clock, ISO 8601 UTC
	start_ns INTEGER,                  -- monotonic time of the start
	end_ns INTEGER,
	payloads TEXT,                     -- none | redacted | full
	host TEXT,
	tool_version TEXT,
	parent_id INTEGER REFERENCES trace(id), -- the trace a replay ran from
	policy TEXT,                       -- replay session policy
	emulated TEXT,                     -- latency profile emulated, if any
	status TEXT NOT NULL DEFAULT 'recording', -- recording | complete | incomplete
	commands INTEGER NOT NULL DEFAULT 0, -- commands stored
	events INTEGER NOT NULL DEFAULT 0,   -- control events stored
	dropped INTEGER NOT NULL DEFAULT 0,  -- commands and events seen but not stored
	notes TEXT,
	uuid TEXT,                         -- stable identity (RFC 4122 v4), the key of push
	fidelity REAL                      -- fidelity of a complete replay, percent (docs/replay.md)
);
CREATE UNIQUE INDEX trace_uuid ON trace (uuid);

-- The machine a trace was made on, written with the trace (fleet: push).
CREATE TABLE trace_host (
	trace_id INTEGER PRIMARY KEY REFERENCES trace(id),
	hostname TEXT,
	machine_id_sha256 TEXT,            -- hex SHA-256 of /etc/machine-id, never the id itself
	kernel_release TEXT,               -- uname -r
	kernel_cmdline TEXT,               -- /proc/cmdline
	boot_id TEXT                       -- /proc/sys/kernel/random/boot_id
);

-- Who sent commands: a process for unix sockets and devices, a peer address for TCP.
CREATE TABLE client (
	trace_id INTEGER NOT NULL REFERENCES trace(id),
	id INTEGER NOT NULL,
	pid INTEGER,
	uid INTEGER,
	comm TEXT,
	peer TEXT,
	first_ns INTEGER,
	PRIMARY KEY (trace_id, id)
);

-- One row per TPM command. seq orders commands and events of a trace together.
CREATE TABLE command (
	id INTEGER PRIMARY KEY,
	trace_id INTEGER NOT NULL REFERENCES trace(id),
	seq INTEGER NOT NULL,
	t_submit_ns INTEGER,               -- command handed to the TPM
	t_done_ns INTEGER,                 -- whole response received
	latency_ns INTEGER,                -- t_done_ns - t_submit_ns
	cc INTEGER,                        -- command code
	locality INTEGER,
	tag INTEGER,
	cmd_size INTEGER,
	rsp_size INTEGER,
	rc INTEGER,                        -- response code; NULL when there was no response
	handle1 INTEGER, handle2 INTEGER, handle3 INTEGER,
	rsp_handle INTEGER,
	n_sessions INTEGER,
	sess_handle INTEGER,               -- first session's handle
	sess_attrs INTEGER,                -- attributes, session i in byte i
	auth_kind INTEGER,                 -- 0 none 1 password 2 hmac 3 hmac+enc 4 policy 5 policy+enc
	pcr INTEGER,                       -- PCR index of PCR_Extend/PCR_Event/PCR_Reset
	client_id INTEGER,
	flags INTEGER NOT NULL DEFAULT 0,  -- 1 redacted 2 malformed 4 emulated 8 no response 16 synthetic time 32 sent by tpmtrace 64 partial 128 added by the replay's policy
	malformed TEXT,                    -- why the command did not parse
	cmd BLOB,                          -- raw bytes (payloads=redacted|full)
	rsp BLOB
);
CREATE INDEX command_trace_seq ON command (trace_id, seq);

-- Control and platform events: INIT, SHUTDOWN, SET_LOCALITY, STOP, POWER_ON, gaps.
CREATE TABLE event (
	id INTEGER PRIMARY KEY,
	trace_id INTEGER NOT NULL REFERENCES trace(id),
	seq INTEGER NOT NULL,
	t_ns INTEGER,
	kind TEXT NOT NULL,
	detail TEXT,
	client_id INTEGER
);
CREATE INDEX event_trace_seq ON event (trace_id, seq);

-- Command code names, filled from the command table when the file is created,
-- so that the views below work in the stock sqlite3 shell.
CREATE TABLE tpm_cc (
	cc INTEGER PRIMARY KEY,
	name TEXT NOT NULL,
	handles_in INTEGER, auth_handles INTEGER, handles_out INTEGER,
	cmd_tpm2b INTEGER, rsp_tpm2b INTEGER,
	destructive INTEGER
);

-- Commands with names and milliseconds, for reading by hand.
CREATE VIEW command_named AS
SELECT c.trace_id, c.seq, c.t_submit_ns, c.cc,
       coalesce(n.name, printf('0x%08X', c.cc)) AS name,
       c.latency_ns / 1e6 AS latency_ms, c.rc, c.pcr, c.auth_kind, c.n_sessions,
       c.client_id, c.flags, c.malformed
FROM command c LEFT JOIN tpm_cc n ON n.cc = c.cc;

-- Per trace and command code: count, total, min, mean, max, nearest-rank
-- percentiles (the smallest latency whose rank r satisfies r >= p% of n, the
-- same definition as the percentile() SQL function), and the latency of the
-- first occurrence (cold TPM, cold caches). The clients' commands only: those
-- tpmtrace sent itself (flag 32) are left out.
CREATE VIEW command_stats AS
WITH r AS (
	SELECT trace_id, cc, seq, latency_ns,
	       row_number() OVER (PARTITION BY trace_id, cc ORDER BY latency_ns, seq) AS rn,
	       count(*) OVER (PARTITION BY trace_id, cc) AS n,
	       first_value(latency_ns) OVER (PARTITION BY trace_id, cc ORDER BY seq) AS first_ns
	FROM command WHERE latency_ns IS NOT NULL AND flags & 32 = 0
)
SELECT r.trace_id, r.cc, coalesce(t.name, printf('0x%08X', r.cc)) AS name,
       count(*) AS count,
       sum(latency_ns) AS total_ns,
       min(latency_ns) AS min_ns,
       avg(latency_ns) AS mean_ns,
       min(CASE WHEN rn * 100 >= n * 50 THEN latency_ns END) AS p50_ns,
       min(CASE WHEN rn * 100 >= n * 95 THEN latency_ns END) AS p95_ns,
       min(CASE WHEN rn * 100 >= n * 99 THEN latency_ns END) AS p99_ns,
       max(latency_ns) AS max_ns,
       max(first_ns) AS first_ns
FROM r LEFT JOIN tpm_cc t ON t.cc = r.cc
GROUP BY r.trace_id, r.cc;

-- Per trace totals, by the one definition every command uses (docs/schema.md,
-- "Figures"; db/stats.h): the clients' commands, those tpmtrace sent itself
-- (flag 32) left out. commands counts them, timed_commands those with a
-- latency (0: the trace has no timing, as an IMA list or a TCG log; then
-- tpm_ns and span_ns are NULL, never 0), tpm_ns sums their latencies,
-- span_ns runs from the first submit to the last response of them;
-- tpmtrace's own are counted in tpmtrace_commands, and the times incl. them
-- follow.
CREATE VIEW trace_summary AS
SELECT t.id AS trace_id, t.name, t.kind, t.status,
       (SELECT count(*) FROM command c WHERE c.trace_id = t.id AND c.flags & 32 = 0) AS commands,
       t.events, t.dropped,
       (SELECT count(*) FROM command c WHERE c.trace_id = t.id) AS stored,
       (SELECT count(latency_ns) FROM command c WHERE c.trace_id = t.id AND c.flags & 32 = 0)
         AS timed_commands,
       (SELECT sum(latency_ns) FROM command c WHERE c.trace_id = t.id AND c.flags & 32 = 0) AS tpm_ns,
       (SELECT CASE WHEN count(latency_ns) THEN max(t_done_ns) - min(t_submit_ns) END
        FROM command c WHERE c.trace_id = t.id AND c.flags & 32 = 0) AS span_ns,
       (SELECT count(*) FROM command c WHERE c.trace_id = t.id AND c.flags & 2) AS malformed,
       (SELECT count(*) FROM command c WHERE c.trace_id = t.id AND c.flags & 32) AS tpmtrace_commands,
       (SELECT sum(latency_ns) FROM command c WHERE c.trace_id = t.id) AS tpm_ns_incl_tpmtrace,
       (SELECT CASE WHEN count(latency_ns) THEN max(t_done_ns) - min(t_submit_ns) END
        FROM command c WHERE c.trace_id = t.id) AS span_ns_incl_tpmtrace
FROM trace t;

-- The kind of each trace (docs/schema.md, "Trace kinds"; the rules of each
-- kind are db/trace_kind.def): the one classification, which every command
-- reads through db/trace_kind.h. A trace not 'complete' is unfinished
-- whatever made it; an import is timed when a client's command of it
-- carries a latency.
CREATE VIEW trace_kind AS
SELECT t.id AS trace_id,
       CASE
	WHEN t.status IS NOT 'complete' THEN 'unfinished'
	WHEN t.kind = 'record' THEN 'record'
	WHEN t.kind = 'replay' AND t.emulated IS NOT NULL THEN 'replay-emulated'
	WHEN t.kind = 'replay' THEN 'replay'
	WHEN t.kind = 'derived' THEN 'derived'
	WHEN t.kind = 'import' AND EXISTS (SELECT 1 FROM command c WHERE c.trace_id = t.id
	     AND c.latency_ns IS NOT NULL AND c.flags & 32 = 0) THEN 'import-timed'
	WHEN t.kind = 'import' THEN 'import-untimed'
	ELSE 'unfinished'
       END AS kind
FROM trace t;

-- Latency profiles (docs/profiles.md): one TPM's cost per command, with provenance.
CREATE TABLE profile (
	id INTEGER PRIMARY KEY,
	name TEXT NOT NULL UNIQUE,
	vendor TEXT, chip TEXT, firmware TEXT, bus TEXT,
	measured_by TEXT, date TEXT,
	source TEXT,                       -- one citation per line
	note TEXT,
	covers TEXT, lacks TEXT,           -- what the figures cover and what they do not
	transport_ns INTEGER,              -- fixed cost added to every priced command
	fallback_ns INTEGER,               -- price of a command the profile lacks (NULL: median)
	created_at TEXT
);

-- One row per (command, authorization kind, variant); times in ns, NULL = unknown.
CREATE TABLE profile_entry (
	profile_id INTEGER NOT NULL REFERENCES profile(id),
	seq INTEGER NOT NULL,              -- order in the profile file
	cc INTEGER NOT NULL,
	auth TEXT NOT NULL,                -- none password hmac hmac+enc policy policy+enc *
	variant TEXT NOT NULL,             -- key or session type, '-' for any
	n INTEGER,                         -- samples behind the figures
	mean_ns INTEGER NOT NULL,
	p50_ns INTEGER, p95_ns INTEGER, stdev_ns INTEGER, min_ns INTEGER, max_ns INTEGER,
	comment TEXT,                      -- provenance of the entry
	p90_ns INTEGER, p99_ns INTEGER,    -- new in version 4
	derived_from INTEGER,              -- the command whose figures these are (NULL: measured)
	PRIMARY KEY (profile_id, cc, auth, variant)
);

-- advise --prove (docs/advise.md): a finding of a trace proved on a profile by
-- two replay runs (the trace as it is and with the change made); the newest
-- row of a trace, finding and profile is the one `report` shows.
CREATE TABLE advise_proof (
	id INTEGER PRIMARY KEY,
	trace_id INTEGER NOT NULL REFERENCES trace(id), -- the trace advised
	kind TEXT NOT NULL,                -- the finding: repeated-primary, session-per-command, ...
	profile TEXT NOT NULL,             -- the profile it was priced on and emulated
	predicted_saving_ms REAL NOT NULL, -- advise's saving, priced on the profile
	replayed_saving_ms REAL NOT NULL,  -- replayed_before_ms - replayed_after_ms
	replayed_before_ms REAL NOT NULL,  -- TPM time of the run before the change
	replayed_after_ms REAL NOT NULL,   -- ... and of the run after it
	before_trace INTEGER REFERENCES trace(id), -- the two replay runs
	after_trace INTEGER REFERENCES trace(id),
	before_policy TEXT,                -- what each run replayed under
	after_policy TEXT,
	created_at TEXT                    -- wall clock, ISO 8601 UTC
);
CREATE INDEX advise_proof_trace ON advise_proof (trace_id, kind, profile);
