-- Leader election schema for MySQL 8.0+ and MariaDB 10.6+.
-- Times are epoch milliseconds (UTC) from the database clock.
-- Every text column compares exactly (utf8mb4_bin): election names, node ids and group names
-- that differ only in case or accents are different ones, as in Java. The server's default
-- collation would take them for one. utf8mb4_bin ignores trailing spaces, so names and node
-- ids must not end with one.
CREATE TABLE IF NOT EXISTS leader_election_lease (
  election_name        VARCHAR(128) NOT NULL,
  leader_id            VARCHAR(255) NULL,
  term                 BIGINT       NOT NULL,
  version              BIGINT       NOT NULL,
  acquired_at          BIGINT       NULL,
  renewed_at           BIGINT       NULL,
  expires_at           BIGINT       NOT NULL,
  handover_to          VARCHAR(255) NULL,
  reelection_requested BOOLEAN      NOT NULL DEFAULT FALSE,
  yielded_by           VARCHAR(255) NULL,
  server_identity      VARCHAR(255) NULL,
  -- The running instance whose session (its node's row) keeps the lease alive, if any.
  leader_instance      VARCHAR(64)  NULL,
  -- When the row last changed (holder, request), by the database clock: the heartbeat reads
  -- what changed since its last read rather than every row.
  changed_at           BIGINT       NOT NULL DEFAULT 0,
  PRIMARY KEY (election_name),
  KEY leader_election_lease_delta (changed_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE IF NOT EXISTS leader_election_candidate (
  election_name VARCHAR(128) NOT NULL,
  node_id       VARCHAR(255) NOT NULL,
  instance_id   VARCHAR(64)  NOT NULL,
  first_seen    BIGINT       NOT NULL,
  last_seen     BIGINT       NOT NULL,
  PRIMARY KEY (election_name, node_id),
  -- One statement per heartbeat refreshes and reads all of a node's candidacies.
  KEY leader_election_lease_node (node_id, instance_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- The holder of each lease, kept apart from the lease row that every renewal writes.
-- Fenced transactions lock this row in share mode; a change of holder updates it and so
-- waits for them, while the holder's own renewals do not. On Galera, where locks are local
-- to one cluster node, a fenced transaction also increments fenced_runs, so that the row is
-- in its write set and certification orders it against every change of holder.
CREATE TABLE IF NOT EXISTS leader_election_lease_fence (
  election_name VARCHAR(128) NOT NULL,
  leader_id     VARCHAR(255) NULL,
  term          BIGINT       NOT NULL,
  fenced_runs   BIGINT       NOT NULL DEFAULT 0,
  PRIMARY KEY (election_name)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- One row per node id: the running instance that uses it and when its heartbeat last ran.
-- A node's heartbeat refreshes this one row, however many elections it takes part in; a
-- candidates row counts as live while its node's row does, and a lease while the row of
-- its holder names the instance that acquired it and has not expired (the session).
CREATE TABLE IF NOT EXISTS leader_election_lease_nodes (
  node_id     VARCHAR(255) NOT NULL,
  instance_id VARCHAR(64)  NOT NULL,
  first_seen  BIGINT       NOT NULL,
  last_seen   BIGINT       NOT NULL,
  -- The session: every refresh moves version on and keeps it live until expires_at.
  version     BIGINT       NOT NULL DEFAULT 0,
  expires_at  BIGINT       NOT NULL DEFAULT 0,
  -- Written by every take-over of one of the node's leases, which so waits for a refresh.
  takeovers   BIGINT       NOT NULL DEFAULT 0,
  -- The session that ended when another instance took the node id over, at its last version.
  previous_instance VARCHAR(64) NULL,
  previous_version  BIGINT       NOT NULL DEFAULT 0,
  -- The rank of the running instance (usually the application's version): a candidate of a
  -- higher rank asks the leader to hand over, so a rolling deploy moves leadership once.
  node_rank         VARCHAR(64)  NOT NULL DEFAULT '',
  PRIMARY KEY (node_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- Partitions of partition groups pinned to a node by an operator: balancing gives a pinned
-- partition to its node while that node is live. Read once per balancing step of a group.
CREATE TABLE IF NOT EXISTS leader_election_lease_pins (
  group_name       VARCHAR(100) NOT NULL,
  partition_number INT          NOT NULL,
  node_id          VARCHAR(255) NOT NULL,
  PRIMARY KEY (group_name, partition_number)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
