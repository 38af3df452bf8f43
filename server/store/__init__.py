"""The store floor: the eventsourcing application and its aggregates, group commit, shards
and the feed of other replicas' writes. It imports the wire floor's records only."""
