"""Every item of a table brought to its model (`migrate plan|apply`, `verify`), resumably."""
