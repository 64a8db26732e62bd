"""The QA scores as defined by SQuAD's evaluation (normalisation, exact match), HotpotQA's (token F1) and verl's
search_r1_like_qa_em (sub-exact match, the <answer> rule), written for Fusebox's parity test from those
definitions, in Python so that Python's own regex word boundaries, str.split and str.strip decide the edge
cases. Reads a JSON list of cases on stdin, writes their scores as a JSON list."""

import collections
import json
import re
import string
import sys


def normalize(text):
    text = "".join(ch for ch in text.lower() if ch not in set(string.punctuation))
    text = re.sub(r"\b(a|an|the)\b", " ", text)
    return " ".join(text.split())


def cover(prediction, answer):
    # R1-Searcher's cover_exact_match_score_1: its normalize_answer (SQuAD's after "_" -> " ") of bool_mapping.
    def words(text):
        text = "yes" if text == "True" else "no" if text == "False" else text
        return normalize(text.replace("_", " ")).split(" ")

    return all(word in words(prediction) for word in words(answer))


def f1(prediction, answer):
    p, a = normalize(prediction), normalize(answer)
    if (p in ("yes", "no", "noanswer") or a in ("yes", "no", "noanswer")) and p != a:
        return 0.0
    p_words, a_words = p.split(), a.split()
    common = sum((collections.Counter(p_words) & collections.Counter(a_words)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(p_words), common / len(a_words)
    return 2 * precision * recall / (precision + recall)


def answer_tag(response):
    found = re.findall(r"<answer>(.*?)</answer>", response, re.DOTALL)
    return found[-1].strip() if found else None


def qa_score(response, golden, match):
    answer = answer_tag(response)
    if answer is None:
        return 0
    if match == "subem":
        return 1 if any(normalize(g) in normalize(answer) for g in golden) else 0
    if not any(normalize(g) == normalize(answer) for g in golden):
        return 0
    if response.count("<answer>") > 10 or response.count("</answer>") > 10:
        return 0.25
    return 1


out = []
for case in json.load(sys.stdin):
    prediction, golden = case["prediction"], case["golden"]
    out.append(
        {
            "normalized": normalize(prediction),
            "em": 1 if any(normalize(g) == normalize(prediction) for g in golden) else 0,
            "subem": 1 if any(normalize(g) in normalize(prediction) for g in golden) else 0,
            "f1": max(f1(prediction, g) for g in golden),
            "cover": 1 if any(cover(prediction, g) for g in golden) else 0,
            "answer": answer_tag(prediction),
            "score_em": qa_score(prediction, golden, "em"),
            "score_subem": qa_score(prediction, golden, "subem"),
        }
    )
print(json.dumps(out))
