"""Weight shard 2 of uner-mpnet-base (uner-mpnet assembles the model from its shards on first use)."""
