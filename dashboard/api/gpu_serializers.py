"""Shapes of the API's GPU answers: a node's GPU topology, the fleet, and where the
resource views disagree (``scheduler_engine.hardware_view``)."""

from __future__ import annotations

from rest_framework import serializers

from scheduler_engine.hardware_view import DEVICE_SOURCES, DEVICE_TYPES, INCONSISTENCY_KINDS


class InconsistencySerializer(serializers.Serializer):
    node = serializers.CharField(required=False)
    kind = serializers.ChoiceField(choices=list(INCONSISTENCY_KINDS))
    message = serializers.CharField()
    details = serializers.DictField()


class GpuDeviceSerializer(serializers.Serializer):
    name = serializers.CharField()
    source = serializers.ChoiceField(choices=list(DEVICE_SOURCES))
    type = serializers.ChoiceField(choices=list(DEVICE_TYPES))
    index = serializers.IntegerField(allow_null=True)
    uuid = serializers.CharField(allow_null=True)
    product = serializers.CharField(allow_null=True)
    architecture = serializers.CharField(allow_null=True)
    memoryBytes = serializers.IntegerField(allow_null=True)
    numaNode = serializers.IntegerField(allow_null=True)
    pcieRoot = serializers.CharField(allow_null=True)
    nvlinkDomain = serializers.CharField(allow_null=True)
    driver = serializers.CharField(allow_null=True)
    pool = serializers.CharField(allow_null=True)
    migParent = serializers.CharField(allow_null=True)
    migProfile = serializers.CharField(allow_null=True)
    partitions = serializers.ListField(child=serializers.CharField())
    claim = serializers.CharField(allow_null=True, help_text="namespace/name of the claim")
    pods = serializers.ListField(child=serializers.CharField(), help_text="namespace/name")
    holderInferred = serializers.BooleanField(
        help_text="device-plugin GPUs: the holder is inferred from the pods' requests"
    )


class NumaZoneSerializer(serializers.Serializer):
    name = serializers.CharField()
    numaNode = serializers.IntegerField(allow_null=True)
    resources = serializers.DictField(
        child=serializers.DictField(child=serializers.IntegerField()),
        help_text="resource → {capacity, allocatable, available} in engine units",
    )


class GpuNodeSerializer(serializers.Serializer):
    node = serializers.CharField()
    allocatable = serializers.IntegerField(
        allow_null=True, help_text="nvidia.com/gpu allocatable (device plugin)"
    )
    gfdCount = serializers.IntegerField(
        allow_null=True, help_text="GPU Feature Discovery's nvidia.com/gpu.count"
    )
    devices = serializers.IntegerField(
        allow_null=True, help_text="whole GPUs the node's ResourceSlices list"
    )
    hardwareCount = serializers.IntegerField(allow_null=True)
    requested = serializers.IntegerField(help_text="running pods' nvidia.com/gpu requests")
    countOnly = serializers.BooleanField(help_text="publishes only a device-plugin count")
    product = serializers.CharField(allow_null=True)
    memoryMiB = serializers.IntegerField(allow_null=True)
    nvlinkDomain = serializers.CharField(allow_null=True)
    topologyPolicy = serializers.CharField(allow_null=True)
    topologyScope = serializers.CharField(allow_null=True)
    gpus = GpuDeviceSerializer(many=True)
    zones = NumaZoneSerializer(many=True)
    inconsistencies = InconsistencySerializer(many=True)


class FleetNodeSerializer(serializers.Serializer):
    node = serializers.CharField()
    product = serializers.CharField(allow_null=True)
    gpus = serializers.IntegerField()
    used = serializers.IntegerField()
    free = serializers.IntegerField()
    countOnly = serializers.BooleanField()
    nvlinkDomain = serializers.CharField(allow_null=True)
    unschedulable = serializers.BooleanField()
    inconsistencies = serializers.IntegerField()


class FleetProductSerializer(serializers.Serializer):
    product = serializers.CharField()
    nodes = serializers.IntegerField()
    gpus = serializers.IntegerField()
    free = serializers.IntegerField()
    wholeFreeNodes = serializers.IntegerField()


class FleetDomainSerializer(serializers.Serializer):
    name = serializers.CharField()
    nodes = serializers.ListField(child=serializers.CharField())
    gpus = serializers.IntegerField()
    free = serializers.IntegerField()


class GpuFleetSerializer(serializers.Serializer):
    gpuNodes = serializers.IntegerField()
    gpus = serializers.IntegerField()
    free = serializers.IntegerField()
    wholeFreeNodes = serializers.ListField(
        child=serializers.CharField(), help_text="schedulable nodes of 8+ GPUs, none in use"
    )
    wholeFreeDomains = serializers.ListField(child=serializers.CharField())
    products = FleetProductSerializer(many=True)
    domains = FleetDomainSerializer(many=True)
    nodes = FleetNodeSerializer(many=True)
