"""What would make a pod fit: nearest nodes, verified changes, defragmentation."""
