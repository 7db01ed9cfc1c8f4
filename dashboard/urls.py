from __future__ import annotations

from django.urls import path

from . import views

app_name = "dashboard"
urlpatterns = [
    path("", views.cluster_list, name="cluster-list"),
    path("clusters/<slug:name>/", views.cluster_detail, name="cluster-detail"),
    path("healthz", views.healthz, name="healthz"),
]
