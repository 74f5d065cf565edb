"""MIME types exchanged by drag and drop and the clipboard."""

CATALOG_ID = "application/x-cluster-designer-catalog-id"   # palette → canvas: one catalog id
ITEMS = "application/x-cluster-designer-items"             # copy/paste: a project JSON fragment
