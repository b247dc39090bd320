"""Weight shard 1 of uner-mpnet-base (uner-mpnet assembles the model from its shards on first use)."""
