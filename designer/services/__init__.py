"""The Services tab: the inference services a design carries and the partitions they run on."""
