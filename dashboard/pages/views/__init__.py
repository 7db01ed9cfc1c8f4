"""Page views by subject: clusters (overview, pending, nodes, explanations), profiles, dry-runs."""
