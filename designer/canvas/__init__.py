"""The diagram: one scene item per component/block of the current block, links as bundles."""
