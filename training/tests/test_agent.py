"""The action model's data: held-out databases never reach training."""

import json
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "training"))

from kgtrain import agent  # noqa: E402


def turns(path, rows):
    with open(path, "w") as f:
        for set_, db, q in rows:
            f.write(json.dumps({"set": set_, "db": db, "question_id": q, "turn": 1,
                                "prompt": "Question: " + q + "\nCall: ", "completion": '{"tool":"ls","args":{}}'}) + "\n")


def config(tmp_path, split):
    sp = tmp_path / "split.json"
    sp.write_text(json.dumps({"heldout": split}))
    return {"agent_split": str(sp), "prepare": {"seed": 1, "trajectories": str(tmp_path / "traj"), "max_tokens": 3072}}


def test_prepare_writes_the_stream_and_the_held_out_turns(tmp_path):
    (tmp_path / "traj").mkdir()
    turns(tmp_path / "traj" / "train.jsonl", [("spider", "a", "q1"), ("spider", "b", "q2"), ("kaggle", "k", "q3")])
    turns(tmp_path / "traj" / "eval.jsonl", [("spider", "h", "q4")])
    cfg = config(tmp_path, {"spider": ["h"], "kaggle": []})
    man = agent.prepare_agent(cfg, str(tmp_path / "data"))
    train = [json.loads(l) for l in open(tmp_path / "data" / "train.jsonl")]
    assert sorted(r["db"] for r in train) == ["a", "b", "k"]
    assert all(set(r) >= {"prompt", "completion"} for r in train)
    assert man["eval_databases"] == ["spider/h"]
    assert man["train_sources"] == {"kaggle": 1, "spider": 2}


def test_prepare_epochs_pass_over_every_pair_once_each(tmp_path):
    (tmp_path / "traj").mkdir()
    turns(tmp_path / "traj" / "train.jsonl", [("spider", "a", f"q{i}") for i in range(6)])
    turns(tmp_path / "traj" / "eval.jsonl", [("spider", "h", "q9")])
    cfg = config(tmp_path, {"spider": ["h"]})
    cfg["prepare"]["epochs"] = 2
    man = agent.prepare_agent(cfg, str(tmp_path / "data"))
    ids = [json.loads(l)["id"] for l in open(tmp_path / "data" / "train.jsonl")]
    assert len(ids) == 12 and man["pairs"] == 6 and man["epochs"] == 2
    assert sorted(ids[:6]) == sorted(ids[6:]) == sorted(f"q{i}#1" for i in range(6))


def test_prepare_tools_keeps_only_the_turns_that_call_them(tmp_path):
    (tmp_path / "traj").mkdir()
    with open(tmp_path / "traj" / "train.jsonl", "w") as f:
        for i, tool in enumerate(["select", "answer", "select", "answer"]):
            f.write(json.dumps({"set": "spider", "db": "a", "question_id": f"q{i // 2}", "turn": i % 2 + 1,
                                "prompt": "Question: q\nCall: ", "completion": json.dumps({"tool": tool, "args": {}})}) + "\n")
    turns(tmp_path / "traj" / "eval.jsonl", [("spider", "h", "q9")])
    cfg = config(tmp_path, {"spider": ["h"]})
    cfg["prepare"]["tools"] = ["select"]
    man = agent.prepare_agent(cfg, str(tmp_path / "data"))
    kept = [json.loads(json.loads(l)["completion"])["tool"] for l in open(tmp_path / "data" / "train.jsonl")]
    assert kept == ["select", "select"] and man["pairs"] == 2 and man["dropped_other_tools"] == 2


def test_prepare_refuses_a_held_out_database_in_training(tmp_path):
    (tmp_path / "traj").mkdir()
    turns(tmp_path / "traj" / "train.jsonl", [("spider", "h", "q1")])
    turns(tmp_path / "traj" / "eval.jsonl", [("spider", "h", "q2")])
    with pytest.raises(SystemExit, match="held-out database spider/h"):
        agent.prepare_agent(config(tmp_path, {"spider": ["h"]}), str(tmp_path / "data"))


def test_prepare_takes_the_runs_held_out_databases_too(tmp_path):
    # A synthetic set of another seed: the split file cannot list its
    # held-out databases; the run's heldout.json does.
    (tmp_path / "traj").mkdir()
    turns(tmp_path / "traj" / "train.jsonl", [("synthetic", "s2_00_clinic", "q1")])
    turns(tmp_path / "traj" / "eval.jsonl", [("synthetic", "s2_01_hotel", "q2")])
    cfg = config(tmp_path, {"spider": ["h"]})
    with pytest.raises(SystemExit, match="neither"):
        agent.prepare_agent(cfg, str(tmp_path / "data"))
    (tmp_path / "traj" / "heldout.json").write_text(json.dumps({"heldout": {"synthetic": ["s2_01_hotel"]}}))
    man = agent.prepare_agent(cfg, str(tmp_path / "data"))
    assert man["eval_databases"] == ["synthetic/s2_01_hotel"] and man["train_databases"] == ["synthetic/s2_00_clinic"]
    (tmp_path / "traj" / "heldout.json").write_text(json.dumps({"heldout": {"synthetic": ["s2_01_hotel", "s2_00_clinic"]}}))
    with pytest.raises(SystemExit, match="held-out database synthetic/s2_00_clinic"):
        agent.prepare_agent(cfg, str(tmp_path / "data"))


def test_the_committed_split_holds_out_what_the_eval_file_says():
    with open(os.path.join(REPO, "training", "agent_split.json")) as f:
        split = json.load(f)
    assert split["heldout"]["spider"] and split["heldout"]["kaggle"]
