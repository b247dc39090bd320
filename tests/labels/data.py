"""The labels-folder test inputs: the shipped types.yaml and a two-cluster clusters.yaml template."""

from __future__ import annotations

from pathlib import Path

TYPES = Path(__file__).resolve().parents[2] / "labels" / "uner-minilm-l6" / "types.yaml"
GOOD = """\
model: {model}
clusters:
- id: 1
  pivot: paris
  size: 3
  label: LOCATION
  status: confirmed
  note: capitals
  members:
  - paris
  - london
  - tokyo
- id: 2
  pivot: aspirin
  label: [DRUG, CHEMICAL_SUBSTANCE]
  status: suggested
  suggested:
    DRUG: 2
  members:
  - aspirin
  - drug
"""
