-- Who leads each election and partition, and until when, on the database clock (epoch ms).
-- A lease lives on its holder's session: while the holder's node row names the instance
-- that acquired the lease, the session's expiry counts, not the lease row's own.
SELECT l.election_name,
       l.leader_id,
       l.term,
       CASE WHEN n.instance_id = l.leader_instance AND n.expires_at > l.expires_at
            THEN n.expires_at ELSE l.expires_at END AS leads_until,
       l.handover_to,
       l.reelection_requested
FROM leader_election_lease l
LEFT JOIN leader_election_lease_nodes n ON n.node_id = l.leader_id
WHERE l.election_name NOT LIKE 'lock:%'
ORDER BY l.election_name
