module qa-shard

go 1.26
