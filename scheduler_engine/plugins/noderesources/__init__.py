"""Node resource plugins: NodeResourcesFit and NodeResourcesBalancedAllocation.

Upstream counterpart: ``pkg/scheduler/framework/plugins/noderesources``.
"""
