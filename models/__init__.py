"""Capsule-network content for the claimcheck wiki: layers, networks, registry, checks.

Kept empty on purpose: importing ``models`` must not import torch, because the tool imports
``models.checks`` submodules lazily and ``claimcheck lint`` must stay torch-free.
"""
