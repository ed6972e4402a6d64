#!/usr/bin/python3
"""The mutation's patches, applied by an independent RFC 6902 implementation
(python3-jsonpatch) to the objects they were made for, must give exactly the
object the delivery rules describe, valid under the Kubernetes 1.35 OpenAPI
schemas (python3-jsonschema), and a second pass over it must change nothing.

  patch_conformance.py BINARY FIXTURES_DIR [EXAMPLES_DIR]

With EXAMPLES_DIR, the opted-in objects of its mutate examples are cases too.
"""
import base64
import copy
import glob
import http.client
import json
import os
import re
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
import time

import jsonpatch
import jsonschema
import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402

BINARY, FIXTURES = sys.argv[1], sys.argv[2]
REF = "registry.example.com/gpustack/models/qwen2.5-7b-instruct@sha256:" + "9372c470eeadd5ecd9c3c74c2b3cb633f8e2f2fad799250a0f70d652b6b825e4"
MOUNT_PATH = "/var/lib/gpustack/model"
CACHE_ENV = ("HF_HOME", "HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "TRANSFORMERS_CACHE", "MODELSCOPE_CACHE")
DOWNLOAD_ENV = ("HUGGING_FACE_HUB_TOKEN", "HUGGINGFACE_HUB_CACHE", "TRANSFORMERS_CACHE", "VLLM_USE_MODELSCOPE", "SGLANG_USE_MODELSCOPE",
                "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY")
DOWNLOAD_FLAGS = ("--revision", "--tokenizer-revision", "--code-revision", "--download-dir")

# ------------------------------------------------------------- schemas

def load_components(name):
    return harness.load_components("%s/openapi/%s" % (FIXTURES, name))


COMPONENTS = {
    "core": load_components("api__v1_openapi.json"),
    "apps": load_components("apis__apps__v1_openapi.json"),
    "batch": load_components("apis__batch__v1_openapi.json"),
}
SCHEMA_OF_KIND = {
    "Pod": ("core", "io.k8s.api.core.v1.Pod"),
    "Deployment": ("apps", "io.k8s.api.apps.v1.Deployment"),
    "StatefulSet": ("apps", "io.k8s.api.apps.v1.StatefulSet"),
    "DaemonSet": ("apps", "io.k8s.api.apps.v1.DaemonSet"),
    "ReplicaSet": ("apps", "io.k8s.api.apps.v1.ReplicaSet"),
    "Job": ("batch", "io.k8s.api.batch.v1.Job"),
    "CronJob": ("batch", "io.k8s.api.batch.v1.CronJob"),
}


def validate_schema(kind, obj):
    if kind in SCHEMA_OF_KIND:
        doc, name = SCHEMA_OF_KIND[kind]
        targets = [(doc, name, obj)]
    else:  # LeaderWorkerSet: no schema here; its pod templates are checked
        lwt = obj["spec"]["leaderWorkerTemplate"]
        targets = [("core", "io.k8s.api.core.v1.PodTemplateSpec", lwt[k]) for k in ("leaderTemplate", "workerTemplate") if k in lwt]
    for doc, name, value in targets:
        schema = {"$ref": "#/components/schemas/" + name, "components": COMPONENTS[doc]}
        jsonschema.Draft7Validator(schema).validate(value)

# --------------------------------------------------- what the rules say

def clean(p):
    if not isinstance(p, str) or p == "":
        return ""
    return p.rstrip("/") or "/"


def all_containers(spec):
    return list(spec.get("initContainers") or []) + list(spec.get("containers") or [])


def cache_volume_names(spec):
    vols = {v.get("name"): v for v in spec.get("volumes") or []}
    out = {"gpustack-model-cache"} & set(vols)
    for c in all_containers(spec):
        env_paths = {clean(e["value"]) for e in c.get("env") or [] if e.get("name") in CACHE_ENV and isinstance(e.get("value"), str) and e["value"]}
        for m in c.get("volumeMounts") or []:
            v = vols.get(m.get("name"))
            if v is None or v.get("name") == "gpustack-model" or v.get("emptyDir") is None:
                continue
            p = clean(m.get("mountPath"))
            if p in ("/var/lib/gpustack/model-cache", MOUNT_PATH) or p in env_paths or any(
                    p == pre or p.startswith(pre + "/") for pre in ("/root/.cache/huggingface", "/root/.cache/modelscope")):
                out.add(v["name"])
    return out


def without_download_flags(argv):
    out, i = [], 0
    while i < len(argv):
        if argv[i] in DOWNLOAD_FLAGS:
            i += 2
            continue
        if not (isinstance(argv[i], str) and any(argv[i].startswith(f + "=") for f in DOWNLOAD_FLAGS)):
            out.append(argv[i])
        i += 1
    return out


def stripped_env(name):
    upper = name.upper()
    return upper.startswith("HF_") or upper.startswith("MODELSCOPE_") or upper in DOWNLOAD_ENV


def served_name(old, env):
    """A "$(NAME)" of a variable the delivery removes cannot expand any more:
    the served name is its literal value (the last definition's), when it has one."""
    m = re.fullmatch(r"\$\((.+)\)", old)
    if m and stripped_env(m.group(1)):
        values = [e for e in env if e.get("name") == m.group(1)]
        if values and isinstance(values[-1].get("value"), str) and "valueFrom" not in values[-1]:
            return values[-1]["value"]
    return old


SHELLS = ("sh", "bash", "dash", "ash", "zsh")

# Programs that run the rest of their words as the command, as getopt reads
# their options: (letters without a value, letters with one, long options
# without a value, long options with one, whether NAME=VALUE words follow).
LAUNCHERS = {
    "tini": ("hsvwgl", "pe", (), (), False),
    "dumb-init": ("hvVc", "r", ("single-child", "verbose", "version", "help"), ("rewrite",), False),
    "env": ("i0v", "uC", ("ignore-environment", "null", "debug", "default-signal", "ignore-signal", "block-signal",
                          "list-signal-handling"), ("unset", "chdir"), True),
    "trtllm-llmapi-launch": ("", "", (), (), False),
}


def launcher_end(words, at):
    """Where the command of the launcher at `at` starts, and env's
    assignments before it; (at, []) where the launcher's words do not read
    as it reads them."""
    letters, valued, longs, valued_longs, assigns = LAUNCHERS[words[at].rsplit("/", 1)[-1]]
    i = at + 1
    while i < len(words):
        w = words[i]
        if not isinstance(w, str):
            break
        if w == "--":
            i += 1
            break
        if w == "-" and assigns:
            i += 1
            continue
        if not re.match(r"-.", w):
            break
        m = re.fullmatch(r"--([^=]*)(=.*)?", w)
        if m:
            if m.group(1) in longs:
                i += 1
            elif m.group(1) in valued_longs:
                i += 1 if m.group(2) else 2
            else:
                return at, []
            continue
        for k, ch in enumerate(w[1:], start=1):
            if ch in valued:
                i += 1 if k + 1 < len(w) else 2
                break
            if ch not in letters:
                return at, []
        else:
            i += 1
    if i > len(words):
        return at, []
    assigned = []
    while assigns and i < len(words) and isinstance(words[i], str) and "=" in words[i]:
        assigned.append(i)
        i += 1
    return (i, assigned) if i < len(words) else (at, [])


def past_launchers(words):
    """The first word of the command once the launchers before it have run
    it (one behind another too), and the positions of env's assignments."""
    at, assigned = 0, []
    while at < len(words) and isinstance(words[at], str) and words[at].rsplit("/", 1)[-1] in LAUNCHERS:
        nxt, more = launcher_end(words, at)
        if nxt == at:
            break
        at, assigned = nxt, assigned + more
    return at, assigned


def without_launcher_download_env(c):
    """env's NAME=VALUE words for a download variable leave the command
    line, as the variable leaves the container's env."""
    command, args = list(c.get("command") or []), list(c.get("args") or [])
    if not command:
        return
    _, assigned = past_launchers(command + args)
    gone = {i for i in assigned if stripped_env((command + args)[i].split("=", 1)[0])}
    if gone:
        words = [w for i, w in enumerate(command + args) if i not in gone]
        kept_in_command = len(command) - len([i for i in gone if i < len(command)])
        c["command"] = words[:kept_in_command]
        if c.get("args") is not None:
            c["args"] = words[kept_in_command:]


def engine_behind_shell(words):
    """`sh -c SCRIPT NAME WORDS...` whose script ends by running an engine's
    own words and then "$@" (or `exec "$@"`, WORDS being the command): the
    shell passes WORDS (not NAME, its $0) on to the engine. The engine's own
    words and where WORDS start, or None."""
    first, _ = past_launchers(words)
    if first >= len(words) or not isinstance(words[first], str) or words[first].rsplit("/", 1)[-1] not in SHELLS:
        return None
    i, has_c = first + 1, False
    while i < len(words) and isinstance(words[i], str):
        if re.fullmatch(r"--[A-Za-z-]+", words[i]):  # bash's long options
            i += 1
        elif re.fullmatch(r"[-+][A-Za-z]+", words[i]):  # an o or O takes the next word as its name
            has_c = has_c or (words[i][0] == "-" and "c" in words[i])
            i += 1 + words[i].count("o") + words[i].count("O")
        else:
            break
    if not has_c or i >= len(words) or not isinstance(words[i], str):
        return None
    last = re.split(r"[;&|\n]", words[i].rstrip("; \t\n\r"))[-1].split()
    if last[:1] == ["exec"]:
        last = last[1:]
    if not last or last[-1] not in ('"$@"', "$@", '"${@}"', "${@}"):
        return None
    own = last[:-1]
    if any(re.search(r"[\"'$`\\(){}<>*?\[\]=]", w) for w in own):
        return None
    return own, i + 2


def point_engine_behind_shell(c, env):
    """The words a shell script passes on to its engine, edited as the
    engine's own command line would be: True when the container runs one."""
    command, args = list(c.get("command") or []), list(c.get("args") or [])
    found = engine_behind_shell(command + args) if command else None
    if not found:
        return False
    own, start = found
    engine, after = recognise(own + (command + args)[start:], True, "")
    if engine is None or after < len(own):
        return False
    args_from = max(0, start - len(command))
    inner = {"image": c.get("image", ""), "command": own + command[start:], "args": args[args_from:]}
    point_engine_at_mount(inner, env, behind_shell=True)
    c["command"] = command[:min(start, len(command))] + inner["command"][len(own):]
    if inner.get("args") or c.get("args") is not None:
        c["args"] = args[:args_from] + inner.get("args", [])
    return True


def recognise(words, has_command, image_repo):
    """The engine a command line (or, with no command, the image) runs, and
    the first word after its own: (None, 0) for none, ("skip", 0) for
    trtllm-serve's disaggregated commands."""
    first = past_launchers(words)[0] if has_command else 0
    if first:
        engine, after = recognise(words[first:], True, image_repo)
        return engine, after + first if engine not in (None, "skip") else 0
    command = words if has_command else []
    engine, after = None, 0
    if not command and image_repo.endswith("vllm-openai"):
        engine, after = "vllm-serve", 0
    elif command and command[0].rsplit("/", 1)[-1] == "vllm" and len(words) > 1 and words[1] == "serve":
        engine, after = "vllm-serve", 2
    elif command and command[0].rsplit("/", 1)[-1] == "sglang" and len(words) > 1 and words[1] == "serve":
        engine, after = "sglang-serve", 2
        if after < len(words) and words[after] == "--model-type":
            after += 2
        elif after < len(words) and isinstance(words[after], str) and words[after].startswith("--model-type="):
            after += 1
    elif not command and image_repo.endswith("huggingfaceserver"):
        engine, after = "kserve-hf", 0
    elif not command and (image_repo.rsplit("/", 1)[-1] == "text-generation-inference" or
                          image_repo.rsplit("/", 1)[-1].startswith("huggingface-text-generation-inference")):
        engine, after = "tgi", 0
    elif not command and (image_repo.rsplit("/", 1)[-1] == "text-embeddings-inference" or
                          image_repo.rsplit("/", 1)[-1].startswith("huggingface-text-embeddings-inference")):
        engine, after = "tei", 0
    elif command and command[0].rsplit("/", 1)[-1] == "text-generation-launcher":
        engine, after = "tgi", 1
    elif command and command[0].rsplit("/", 1)[-1] == "text-embeddings-router":
        engine, after = "tei", 1
    elif command and command[0].rsplit("/", 1)[-1] == "trtllm-serve":
        if len(words) > 1 and words[1] in ("disaggregated", "disaggregated_mpi_worker"):
            return "skip", 0
        engine, after = "trtllm", 2 if len(words) > 1 and words[1] in ("serve", "grpc", "mm_embedding_serve") else 1
    elif command and (command[0].rsplit("/", 1)[-1] == "python" or command[0].rsplit("/", 1)[-1].startswith("python3")):
        i = 1
        while i < len(words) - 1 and i <= 32:  # at most 32 words of options are read
            # Options before -m; a script (or -c) ends them, and a later -m is the script's.
            if not isinstance(words[i], str) or not re.fullmatch(r"-.+", words[i]) or words[i] == "-c":
                break
            if words[i] in ("-W", "-X"):
                i += 2
                continue
            if words[i] != "-m":
                i += 1
                continue
            engine = {"vllm.entrypoints.openai.api_server": "vllm-api", "sglang.launch_server": "sglang",
                      # Dynamo's TensorRT-LLM worker takes SGLang's two model flags (--model, and --model-path
                      # from its older releases) and a --served-model-name.
                      "dynamo.vllm": "vllm-api", "dynamo.sglang": "sglang", "dynamo.trtllm": "sglang",
                      "huggingfaceserver": "kserve-hf"}.get(words[i + 1])
            after = i + 2
            break
    return engine, after


def point_engine_at_mount(c, env, behind_shell=False):
    """design.md 1.2 rule 5a, written out again: the model argument of vllm
    serve, vLLM's api_server module, SGLang's launch_server or sglang serve
    becomes the mount.
    env: the container's variables before the delivery removed any."""
    if not behind_shell and point_engine_behind_shell(c, env):
        return
    command, args = list(c.get("command") or []), list(c.get("args") or [])
    words = command + args
    image_repo = c.get("image", "").split("@")[0]
    if ":" in image_repo.rsplit("/", 1)[-1]:
        image_repo = image_repo.rsplit(":", 1)[0]
    # Behind a shell, the words passed on are a command line even where none of them is in command.
    engine, after = recognise(words, bool(command) or behind_shell, image_repo)
    if engine in (None, "skip"):
        return
    if engine == "kserve-hf":
        point_kserve_server_at_mount(c, command, args, after)
        return
    if engine == "trtllm":
        point_trtllm_at_mount(c, command, words, after)
        return
    flags = {"sglang": ("--model-path", "--model"), "sglang-serve": ("--model-path", "--model"), "tgi": ("--model-id",), "tei": ("--model-id",)}.get(engine, ("--model",))
    at, old, joined = None, None, None
    if engine in ("vllm-serve", "sglang-serve") and after < len(words) and isinstance(words[after], str) and words[after] and not words[after].startswith("-"):
        at, old = after, words[after]
    else:
        for i in range(after, len(words)):
            w = words[i]
            if not isinstance(w, str):
                continue
            hit = [f for f in flags if w == f and i + 1 < len(words) and isinstance(words[i + 1], str) and words[i + 1] and not words[i + 1].startswith("-")]
            if hit:
                at, old = i + 1, words[i + 1]
                break
            hit = [f for f in flags if w.startswith(f + "=")]
            if hit:
                at, old, joined = i, w[len(hit[0]) + 1:], hit[0]
                break
    if engine in ("tgi", "tei") and at is None:
        # TGI's launcher and TEI's router take MODEL_ID (the last one set)
        # when no --model-id is given (TGI, else its default model).
        model_ids = [e for e in env if e.get("name") == "MODEL_ID"]
        if model_ids and isinstance(model_ids[-1].get("value"), str) and "valueFrom" not in model_ids[-1] and model_ids[-1]["value"].rstrip("/") == MOUNT_PATH:
            return
        c["args"] = args + ["--model-id=" + MOUNT_PATH]
        return
    if at is None or old.rstrip("/") == MOUNT_PATH:
        return
    words[at] = joined + "=" + MOUNT_PATH if joined else MOUNT_PATH
    if engine not in ("tgi", "tei") and not any(isinstance(w, str) and (w == "--served-model-name" or w.startswith("--served-model-name=")) for w in words):
        words += ["--served-model-name", served_name(old, env)]
    put_back(c, command, words)


def put_back(c, command, words):
    """The edited command line (command then args) back into the container,
    command keeping its length; args written when it was there or has words."""
    if c.get("command") is not None:
        c["command"] = words[:len(command)]
    if words[len(command):] or c.get("args") is not None:
        c["args"] = words[len(command):]


TRTLLM_BOOLEAN_OPTIONS = ("--trust_remote_code", "--enable_chunked_prefill", "--fail_fast_on_attention_window_too_large", "--help")


def point_trtllm_at_mount(c, command, words, after):
    """trtllm-serve's model is its one argument, wherever click finds it
    among the options: the first word that is no option and no option's
    value. It becomes the mount; no served name is added."""
    i = after
    while i < len(words):
        w = words[i]
        if isinstance(w, str) and w and not w.startswith("-"):
            if w.rstrip("/") == MOUNT_PATH:
                return
            words[i] = MOUNT_PATH
            put_back(c, command, words)
            return
        if isinstance(w, str) and "=" not in w and w not in TRTLLM_BOOLEAN_OPTIONS:
            i += 1
        i += 1


KSERVE_FETCH_FLAGS = ("--model_id", "--model_revision", "--tokenizer_revision")


def point_kserve_server_at_mount(c, command, args, after):
    """KServe's Hugging Face server loads --model_id from the hub, else
    --model_dir: the id and its revisions go (either form), and the last
    --model_dir becomes the mount, or one is appended to args."""
    tagged = [(w, True) for w in command] + [(w, False) for w in args]
    kept, i, model_dir = tagged[:after], after, None
    while i < len(tagged):
        w = tagged[i][0]
        flag = w.split("=", 1)[0] if isinstance(w, str) and w.startswith("--") else None
        spaced_value = w == flag and i + 1 < len(tagged) and isinstance(tagged[i + 1][0], str) and tagged[i + 1][0] and not tagged[i + 1][0].startswith("-")
        if flag in KSERVE_FETCH_FLAGS and (spaced_value or "=" in w):
            i += 2 if spaced_value else 1
            continue
        if flag == "--model_dir" and (spaced_value or "=" in w):
            model_dir = len(kept) + 1 if spaced_value else len(kept)
        kept.append(tagged[i])
        i += 1
    if model_dir is None:
        kept.append(("--model_dir=" + MOUNT_PATH, False))
    elif kept[model_dir][0].split("=", 1)[-1].rstrip("/") != MOUNT_PATH:
        kept[model_dir] = ("--model_dir=" + MOUNT_PATH if kept[model_dir][0].startswith("--model_dir=") else MOUNT_PATH, kept[model_dir][1])
    if c.get("command") is not None:
        c["command"] = [w for w, in_command in kept if in_command]
    if any(not in_command for _, in_command in kept) or c.get("args") is not None:
        c["args"] = [w for w, in_command in kept if not in_command]


def right_volume(v, ref):
    """The same reference, whatever its pullPolicy."""
    return v.get("name") == "gpustack-model" and set(v) == {"name", "image"} and v["image"].get("reference") == ref and set(v["image"]) <= {"reference", "pullPolicy"}


def render(spec, ref, names):
    """The pod spec holding exactly the delivery."""
    cache = cache_volume_names(spec)
    vols = [v for v in spec.get("volumes") or [] if v.get("name") not in cache]
    at = [i for i, v in enumerate(vols) if v.get("name") == "gpustack-model"]
    if at:
        if not right_volume(vols[at[0]], ref):
            vols[at[0]] = {"name": "gpustack-model", "image": {"reference": ref}}
    else:
        vols.append({"name": "gpustack-model", "image": {"reference": ref}})
    spec["volumes"] = vols
    mount = {"name": "gpustack-model", "mountPath": MOUNT_PATH, "readOnly": True}
    for field in ("initContainers", "containers"):
        for c in spec.get(field) or []:
            if c.get("volumeMounts") is not None:
                c["volumeMounts"] = [m for m in c["volumeMounts"] if m.get("name") not in cache]
            env = list(c.get("env") or [])
            without_launcher_download_env(c)
            if c.get("env") is not None:
                c["env"] = [e for e in c["env"] if not (isinstance(e.get("name"), str) and stripped_env(e["name"]))]
            selected = field == "containers" and (not names or c.get("name") in names)
            if c.get("args") is not None:
                c["args"] = without_download_flags(c["args"])
            if c.get("command"):
                c["command"] = c["command"][:1] + without_download_flags(c["command"][1:])
            if selected:  # on the command line as it is without the download flags
                point_engine_at_mount(c, env)
            if selected:
                mounts = c.get("volumeMounts") or []
                ours = [j for j, m in enumerate(mounts) if m.get("name") == "gpustack-model"]
                if not ours:
                    mounts.append(dict(mount))
                else:
                    if mounts[ours[0]] != mount:
                        mounts[ours[0]] = dict(mount)
                    for j in reversed(ours[1:]):
                        del mounts[j]
                c["volumeMounts"] = mounts


POD_SPEC_PATHS = {
    "Pod": [("spec",)],
    "Deployment": [("spec", "template", "spec")], "StatefulSet": [("spec", "template", "spec")], "DaemonSet": [("spec", "template", "spec")],
    "ReplicaSet": [("spec", "template", "spec")], "Job": [("spec", "template", "spec")], "CronJob": [("spec", "jobTemplate", "spec", "template", "spec")],
    "LeaderWorkerSet": [("spec", "leaderWorkerTemplate", "leaderTemplate", "spec"), ("spec", "leaderWorkerTemplate", "workerTemplate", "spec")],
}


def dig(obj, path):
    for key in path:
        if not isinstance(obj, dict) or key not in obj:
            return None
        obj = obj[key]
    return obj


OPT_IN_ANNOTATIONS = ("gpustack.ai/model-image", "gpustack.ai/model-containers")


PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"


def pinned(spec):
    """spec.nodeName, a hostname nodeSelector, or required affinity naming one node."""
    if spec.get("nodeName") or (spec.get("nodeSelector") or {}).get("kubernetes.io/hostname"):
        return True
    terms = ((((spec.get("affinity") or {}).get("nodeAffinity") or {}).get("requiredDuringSchedulingIgnoredDuringExecution") or {})
             .get("nodeSelectorTerms") or [])
    hosts = set()
    for t in terms:
        named = [set(e.get("values") or []) for e in (t.get("matchExpressions") or []) if e.get("key") == "kubernetes.io/hostname" and e.get("operator") == "In"]
        named += [set(e.get("values") or []) for e in (t.get("matchFields") or []) if e.get("key") == "metadata.name" and e.get("operator") == "In"]
        if not named:
            return False
        allowed = set.intersection(*named)
        if len(allowed) != 1:
            return False
        hosts |= allowed
    return len(hosts) == 1


def place(spec, warm):
    """The preferred term towards the warm nodes, beside whatever affinity is there."""
    term = {"weight": 100, "preference": {"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In", "values": warm}]}}
    affinity = spec.get("affinity") or {}
    node_affinity = affinity.get("nodeAffinity") or {}
    preferred = node_affinity.get(PREFERRED) or []
    if term in preferred:
        return
    spec["affinity"] = affinity
    affinity["nodeAffinity"] = node_affinity
    node_affinity[PREFERRED] = preferred + [term]


def expected_object(kind, obj, operation="CREATE", warm=None):
    out = copy.deepcopy(obj)
    ann = out["metadata"].get("annotations") or {}
    names = [n.strip() for n in ann.get("gpustack.ai/model-containers", "").split(",") if n.strip()]
    for path in POD_SPEC_PATHS[kind]:
        spec = dig(out, path)
        if spec is None:
            continue
        render(spec, ann["gpustack.ai/model-image"], names)
        if kind == "Pod" and warm and not pinned(spec):
            place(spec, warm)
        # A template carries the workload's opt-in into its Pods (a Job's
        # template cannot change after creation).
        if kind != "Pod" and not (kind == "Job" and operation != "CREATE"):
            template = dig(out, path[:-1])
            meta = template.get("metadata") or {}
            template["metadata"] = meta
            meta["labels"] = dict(meta.get("labels") or {}, **{"gpustack.ai/model-delivery": "image"})
            meta["annotations"] = dict(meta.get("annotations") or {}, **{k: ann[k] for k in OPT_IN_ANNOTATIONS if k in ann})
    return out


def normalized(o):
    """Nulls and empty lists are absent members to the apiserver."""
    if isinstance(o, dict):
        return {k: normalized(v) for k, v in o.items() if v is not None and v != []}
    if isinstance(o, list):
        return [normalized(v) for v in o]
    return o

# ------------------------------------------------------------- running

GROUPS = {"Pod": ("", "v1"), "Deployment": ("apps", "v1"), "StatefulSet": ("apps", "v1"), "DaemonSet": ("apps", "v1"), "ReplicaSet": ("apps", "v1"),
          "Job": ("batch", "v1"), "CronJob": ("batch", "v1"), "LeaderWorkerSet": ("leaderworkerset.x-k8s.io", "v1")}


class Served:
    """The real binary serving /mutate on a loopback port, over TLS with a
    certificate made here, one kept-alive connection: the same review() path
    as the `review` command, without a process start a review (which under
    the sanitizers cost half a second each, most of this test's time)."""

    def __init__(self):
        self.work = tempfile.mkdtemp(prefix="miw-patch-served-")
        certs = os.path.join(self.work, "certs")
        subprocess.run(["bash", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "certs", "gen-certs.sh"), "--out", certs],
                       check=True, capture_output=True)
        self.context = ssl.create_default_context(cafile=os.path.join(certs, "ca.crt"))
        for _ in range(3):
            probe = socket.socket()
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
            probe.close()
            self.log = open(os.path.join(self.work, "serve.log"), "w+")
            self.proc = subprocess.Popen([BINARY, "serve", "--listen", "127.0.0.1:%d" % self.port, "--tls-cert", os.path.join(certs, "tls.crt"),
                                          "--tls-key", os.path.join(certs, "tls.key"), "--kube-version", "v1.35.0", "--shutdown-delay", "0ms"],
                                         stdout=self.log, stderr=subprocess.STDOUT)
            if self._wait():
                break
        self.conn = None

    def _wait(self):
        deadline = time.time() + 20
        while time.time() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return True
            except OSError:
                if self.proc.poll() is not None:
                    self.log.seek(0)
                    if "Address already in use" in self.log.read():
                        return False
                    raise AssertionError("serve exited")
                time.sleep(0.05)
        raise AssertionError("serve did not start")

    def mutate(self, body):
        for attempt in (1, 2):
            if self.conn is None:
                self.conn = http.client.HTTPSConnection("127.0.0.1", self.port, context=self.context, timeout=30)
            try:
                self.conn.request("POST", "/mutate", body=body, headers={"Content-Type": "application/json"})
                resp = self.conn.getresponse()
                data = resp.read()
                assert resp.status == 200, (resp.status, data[:300])
                return data
            except (ConnectionError, http.client.HTTPException):
                self.conn = None
                if attempt == 2:
                    raise

    def stop(self):
        self.proc.terminate()
        self.proc.wait(10)
        shutil.rmtree(self.work, ignore_errors=True)


SERVED = Served()


def review(kind, obj, operation="CREATE", nodes=None):
    group, version = GROUPS[kind]
    body = {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
            "request": {"uid": "patch-test", "kind": {"group": group, "version": version, "kind": kind}, "operation": operation,
                        "namespace": "gpustack", "name": obj["metadata"].get("name", ""), "object": obj}}
    if nodes is None:
        out = json.loads(SERVED.mutate(json.dumps(body).encode()))
    else:
        # Nodes from a file: only the offline command reads them.
        run = subprocess.run([BINARY, "review", "--endpoint", "mutate", "--nodes", nodes, "-"], input=json.dumps(body).encode(), capture_output=True)
        if run.returncode not in (0, 1):
            raise AssertionError("exit %d: %s" % (run.returncode, run.stderr.decode()))
        out = json.loads(run.stdout)
    resp = out["response"]
    assert resp["uid"] == "patch-test"
    assert ("patch" in resp) == ("patchType" in resp), "patch and patchType go together"
    ops = None
    if "patch" in resp:
        assert resp["patchType"] == "JSONPatch"
        ops = json.loads(base64.b64decode(resp["patch"], validate=True))
        assert ops, "a patch is never empty: no change means no patch"
    return resp, ops


def check_shape(ops):
    """Removals from one array go from the highest index down; nothing is
    replaced whole that is not the volume or the mount."""
    last_removed = {}
    for op in ops:
        path = op["path"]
        assert op["op"] in ("add", "remove", "replace"), op
        if op["op"] == "replace":
            assert re.search(r"/(volumes|volumeMounts|args|command)/\d+$", path), "replaces only a volume, a mount or a model argument: %s" % path
        m = re.match(r"^(.*)/(\d+)$", path)
        if op["op"] == "remove" and m:
            base, index = m.group(1), int(m.group(2))
            if base in last_removed:
                assert index < last_removed[base], "removals from %s must descend" % base
            last_removed[base] = index


def pod_template(spec, labels=None):
    return {"metadata": {"labels": labels or {"app": "qwen"}}, "spec": spec}


def opted_in_meta(name, extra_annotations=None, ref=REF):
    ann = {"gpustack.ai/model-image": ref}
    ann.update(extra_annotations or {})
    return {"name": name, "namespace": "gpustack", "labels": {"gpustack.ai/model-delivery": "image", "app.kubernetes.io/name": "qwen"}, "annotations": ann}


def wrap(kind, name, spec, annotations=None):
    meta = opted_in_meta(name, annotations)
    selector = {"matchLabels": {"app": "qwen"}}
    if kind == "Pod":
        return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}
    if kind in ("Deployment", "StatefulSet", "DaemonSet", "ReplicaSet"):
        body = {"selector": selector, "template": pod_template(spec)}
        if kind == "StatefulSet":
            body["serviceName"] = "qwen"
        return {"apiVersion": "apps/v1", "kind": kind, "metadata": meta, "spec": body}
    if kind == "Job":
        return {"apiVersion": "batch/v1", "kind": "Job", "metadata": meta, "spec": {"template": pod_template(spec)}}
    if kind == "CronJob":
        return {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": meta,
                "spec": {"schedule": "0 * * * *", "jobTemplate": {"spec": {"template": pod_template(spec)}}}}
    leader = copy.deepcopy(spec)
    return {"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet", "metadata": meta,
            "spec": {"replicas": 1, "leaderWorkerTemplate": {"size": 2, "leaderTemplate": pod_template(leader), "workerTemplate": pod_template(spec)}}}


def vllm_spec():
    """A Pod moved from Hugging Face download to image delivery: it still
    carries the download-era settings."""
    return {
        "restartPolicy": "Always",
        "initContainers": [{"name": "fetch", "image": "busybox:1.36", "command": ["sh", "-c", "echo fetch --revision main"],
                            "env": [{"name": "HF_TOKEN", "valueFrom": {"secretKeyRef": {"name": "hf", "key": "token"}}}, {"name": "KEEP", "value": "1"}],
                            "volumeMounts": [{"name": "hf-cache", "mountPath": "/root/.cache/huggingface"}]}],
        "containers": [{
            "name": "vllm", "image": "vllm/vllm-openai:v0.6.3",
            "command": ["python3", "-m", "vllm.entrypoints.openai.api_server", "--revision=a09a3545"],
            "args": ["--model", MOUNT_PATH, "--revision", "main", "--port", "8000"],
            "env": [{"name": "HF_HOME", "value": "/data/hf"}, {"name": "https_proxy", "value": "http://proxy:3128"}, {"name": "VLLM_PORT", "value": "8000"},
                    {"name": "HF_HUB_OFFLINE", "value": "1"}, {"name": "NO_PROXY", "value": "10.0.0.0/8"}],
            "envFrom": [{"configMapRef": {"name": "vllm-env"}}],
            "ports": [{"containerPort": 8000, "name": "http"}],
            "resources": {"limits": {"nvidia.com/gpu": "1", "memory": "32Gi"}, "requests": {"cpu": "4"}},
            "volumeMounts": [{"name": "hf-cache", "mountPath": "/root/.cache/huggingface/hub/"}, {"name": "data", "mountPath": "/data/hf"},
                             {"name": "shm", "mountPath": "/dev/shm"}, {"name": "model-cache", "mountPath": "/var/lib/gpustack/model-cache"}],
        }, {
            "name": "metrics", "image": "prom/statsd-exporter:v0.26.0", "args": ["--web.listen-address=:9102"],
        }],
        "volumes": [{"name": "hf-cache", "emptyDir": {}}, {"name": "data", "emptyDir": {"sizeLimit": "50Gi"}}, {"name": "shm", "emptyDir": {"medium": "Memory"}},
                    {"name": "model-cache", "emptyDir": {}}, {"name": "gpustack-model-cache", "persistentVolumeClaim": {"claimName": "old-cache"}},
                    {"name": "config", "configMap": {"name": "vllm"}}],
    }


def mutated_spec():
    spec = vllm_spec()
    render(spec, REF, [])
    return spec


CASES = []


def case(name, kind, obj, expect_patch=True, warnings=(), placed=False):
    CASES.append((name, kind, obj, expect_patch, warnings, placed))


# Nodes for placement: two hold the pinned image (listed out of order), one only its tag;
# the term names them by their kubernetes.io/hostname label, not their names.
NODES_FILE = os.path.join(tempfile.mkdtemp(prefix="miw-patch-"), "nodes.json")
WARM = ["gpu-a", "gpu-b"]
with open(NODES_FILE, "w") as f:
    json.dump({"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name + ".compute.internal", "labels": {"kubernetes.io/hostname": name}}, "status": {
            "nodeInfo": {"kubeletVersion": "v1.35.1", "containerRuntimeVersion": "containerd://2.1.3"},
            "images": [{"names": names}]}}
        for name, names in [("gpu-b", [REF]), ("gpu-c", [REF.split("@")[0] + ":v1"]), ("gpu-a", [REF, REF.split("@")[0] + ":v1"])]]}, f)


# every workload kind, with the whole rule set at work
for kind in POD_SPEC_PATHS:
    case("%s: download-era settings are replaced by the delivery" % kind, kind, wrap(kind, "qwen", vllm_spec()),
         warnings=("envFrom is not inspected", "a --revision inside a shell string is not removed"))
    case("%s: an already rendered template is left alone" % kind, kind, expected_object(kind, wrap(kind, "qwen", mutated_spec())), expect_patch=False)
    if kind != "Pod":
        bare = wrap(kind, "bare-template", mutated_spec())
        for path in POD_SPEC_PATHS[kind]:
            dig(bare, path[:-1]).pop("metadata")
        case("%s: a rendered template without metadata gets the opt-in" % kind, kind, bare)

# one rule at a time
case("empty pod: no env, volumes or mounts; arrays are added whole", "Pod", wrap("Pod", "bare", {"containers": [{"name": "c", "image": "i"}]}))
case("empty arrays get an appended element", "Pod", wrap("Pod", "empty-arrays", {"volumes": [], "containers": [{"name": "c", "image": "i", "volumeMounts": [], "env": []}]}))
case("null arrays are replaced whole", "Pod", wrap("Pod", "nulls", {"volumes": None, "containers": [{"name": "c", "image": "i", "volumeMounts": None, "env": None}]}))
case("the selected containers only", "Pod", wrap("Pod", "selected", {"containers": [{"name": "a", "image": "i"}, {"name": "b", "image": "i"}, {"name": "c", "image": "i"}]},
                                                 {"gpustack.ai/model-containers": " a , c "}))
case("a mount at another path is corrected", "Pod", wrap("Pod", "wrong-path", {
    "volumes": [{"name": "gpustack-model", "image": {"reference": REF}}],
    "containers": [{"name": "c", "image": "i", "volumeMounts": [{"name": "gpustack-model", "mountPath": "/models", "readOnly": False}]}]}))
case("a subPath mount is corrected", "Pod", wrap("Pod", "subpath", {
    "volumes": [{"name": "gpustack-model", "image": {"reference": REF}}],
    "containers": [{"name": "c", "image": "i", "volumeMounts": [{"name": "gpustack-model", "mountPath": MOUNT_PATH, "readOnly": True, "subPath": "weights"}]}]}))
case("duplicate model mounts are reduced to one", "Pod", wrap("Pod", "duplicates", {
    "volumes": [{"name": "gpustack-model", "image": {"reference": REF}}],
    "containers": [{"name": "c", "image": "i", "volumeMounts": [{"name": "gpustack-model", "mountPath": "/a"}, {"name": "x", "mountPath": "/x"},
                                                                {"name": "gpustack-model", "mountPath": MOUNT_PATH, "readOnly": True}]}]}))
case("a different volume named gpustack-model is replaced", "Pod", wrap("Pod", "other-volume", {
    "volumes": [{"name": "gpustack-model", "image": {"reference": "registry.example.com/other@sha256:" + "a" * 64, "pullPolicy": "Always"}}],
    "containers": [{"name": "c", "image": "i"}]}))
case("an emptyDir named gpustack-model is replaced", "Pod", wrap("Pod", "emptydir-model", {
    "volumes": [{"name": "gpustack-model", "emptyDir": {}}], "containers": [{"name": "c", "image": "i"}]}))
case("the defaulted pullPolicy is the delivery", "Pod", wrap("Pod", "defaulted", {
    "volumes": [{"name": "gpustack-model", "image": {"reference": REF, "pullPolicy": "IfNotPresent"}}],
    "containers": [{"name": "c", "image": "i", "volumeMounts": [{"name": "gpustack-model", "mountPath": MOUNT_PATH, "readOnly": True}]}]}), expect_patch=False)
case("pullPolicy Never (air-gapped, preloaded) is the delivery", "Pod", wrap("Pod", "never", {
    "volumes": [{"name": "gpustack-model", "image": {"reference": REF, "pullPolicy": "Never"}}],
    "containers": [{"name": "c", "image": "i", "volumeMounts": [{"name": "gpustack-model", "mountPath": MOUNT_PATH, "readOnly": True}]}]}), expect_patch=False)
case("the whole download environment goes", "Pod", wrap("Pod", "download-env", {"containers": [{"name": "c", "image": "i", "env": [
    {"name": "HUGGING_FACE_HUB_TOKEN", "value": "x"}, {"name": "MODELSCOPE_API_TOKEN", "value": "x"}, {"name": "modelscope_cache", "value": "/m"},
    {"name": "VLLM_USE_MODELSCOPE", "value": "True"}, {"name": "SGLANG_USE_MODELSCOPE", "value": "true"}, {"name": "TRANSFORMERS_CACHE", "value": "/t"},
    {"name": "VLLM_PORT", "value": "8000"}]}]}))
case("env's hub and proxy variables leave a download step's command line", "Pod", wrap("Pod", "env-assignments", {
    "initContainers": [{"name": "fetch", "image": "i", "command": ["env", "HF_TOKEN=x", "https_proxy=http://p:3128", "LANG=C", "huggingface-cli"],
                        "args": ["download", "Qwen/Qwen2.5-7B-Instruct"]}],
    "containers": [{"name": "c", "image": "i", "command": ["env", "-i", "HF_HUB_OFFLINE=1"], "args": ["./serve.sh", "HF_TOKEN=kept"]}]}),
    warnings=("huggingface-cli download still fetches from the hub, now without its hub and proxy variables",))
case("the four download flags, both forms", "Pod", wrap("Pod", "download-flags", {"containers": [{"name": "c", "image": "i", "command": ["server"],
    "args": ["--download-dir", "/d", "--tokenizer-revision=x", "--code-revision", "c", "--revision=r", "--port", "8000", "--download-directory", "keep"]}]}))
for name, container in [
    ("vllm serve with a positional model", {"command": ["vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct", "--port", "8000"]}),
    ("vllm serve split over command and args", {"command": ["vllm"], "args": ["serve", "Qwen/Qwen2.5-7B-Instruct", "--download-dir", "/d"]}),
    ("vllm serve --model X", {"command": ["vllm", "serve"], "args": ["--model", "Qwen/Qwen2.5-7B-Instruct"]}),
    ("vllm serve --model=X", {"command": ["/usr/local/bin/vllm", "serve", "--model=Qwen/Qwen2.5-7B-Instruct", "--tensor-parallel-size", "2"]}),
    ("the api_server module", {"command": ["python3", "-m", "vllm.entrypoints.openai.api_server"], "args": ["--model", "Qwen/Qwen2.5-7B-Instruct"]}),
    ("sglang --model-path", {"command": ["python3", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen2.5-7B-Instruct", "--port", "30000"]}),
    ("sglang --model", {"command": ["python", "-m", "sglang.launch_server"], "args": ["--model=Qwen/Qwen2.5-7B-Instruct"]}),
    ("NVIDIA Dynamo's vLLM worker", {"command": ["python3", "-m", "dynamo.vllm"], "args": ["--model", "Qwen/Qwen2.5-7B-Instruct", "--enforce-eager"]}),
    ("NVIDIA Dynamo's SGLang worker", {"command": ["python3", "-m", "dynamo.sglang", "--model-path", "Qwen/Qwen2.5-7B-Instruct", "--tp", "1"]}),
    ("NVIDIA Dynamo's TensorRT-LLM worker", {"command": ["python3", "-m", "dynamo.trtllm"], "args": ["--model-path", "meta-llama/Llama-3.1-8B-Instruct", "--max-batch-size", "2"]}),
    ("sglang serve, positional", {"command": ["sglang", "serve"], "args": ["Qwen/Qwen2.5-7B-Instruct", "--tp", "2"]}),
    ("sglang serve --model-type then --model-path", {"command": ["sglang", "serve", "--model-type=llm", "--model-path", "Qwen/Qwen2.5-7B-Instruct"]}),
    ("the vllm-openai image's entrypoint", {"image": "vllm/vllm-openai:v0.8.5", "args": ["Qwen/Qwen2.5-7B-Instruct", "--max-model-len", "8192"]}),
    ("--served-model-name already given", {"command": ["vllm", "serve", "Qwen/Qwen2.5-7B-Instruct", "--served-model-name", "qwen"]}),
    ("--served-model-name= already given", {"command": ["vllm", "serve"], "args": ["--model", "Qwen/Qwen2.5-7B-Instruct", "--served-model-name=qwen"]}),
    ("vllm serve behind a script's \"$@\"", {"command": ["/bin/bash", "-c", "pip install vllm-gguf-plugin && exec vllm serve \"$@\"", "--"],
                                              "args": ["Qwen/Qwen2.5-7B-Instruct", "--download-dir", "/d", "--port", "8000"]}),
    ("bash's options before -c", {"command": ["/bin/bash", "--noprofile", "-eo", "pipefail", "-c", "exec vllm serve \"$@\"", "--"],
                                   "args": ["Qwen/Qwen2.5-7B-Instruct"]}),
    ("the words a script runs as its command", {"command": ["sh", "-c", "ulimit -n 65536 && exec \"$@\"", "--"],
                                                 "args": ["vllm", "serve", "Qwen/Qwen2.5-7B-Instruct", "--revision", "main"]}),
    ("SGLang's module behind sh -ec, the words it passes on in command", {"command": ["sh", "-ec", "exec python3 -m sglang.launch_server \"$@\"", "sglang",
                                                                                  "--model-path", "Qwen/Qwen2.5-7B-Instruct"], "args": ["--tp", "2"]}),
    ("vllm serve started by tini", {"command": ["/usr/bin/tini", "-s", "-p", "SIGTERM", "--", "vllm", "serve"], "args": ["Qwen/Qwen2.5-7B-Instruct"]}),
    ("vllm serve started by dumb-init", {"command": ["dumb-init", "--rewrite=15:2", "vllm"], "args": ["serve", "--model", "Qwen/Qwen2.5-7B-Instruct"]}),
    ("env setting a hub variable and another before vllm serve", {"command": ["env", "-u", "PYTHONPATH", "HF_HUB_OFFLINE=0", "VLLM_LOGGING_LEVEL=DEBUG",
                                                                             "vllm", "serve", "Qwen/Qwen2.5-7B-Instruct"], "args": ["--port", "8000"]}),
    ("a shell script behind tini", {"command": ["tini", "--", "bash", "-c", "exec vllm serve \"$@\"", "--"],
                                    "args": ["Qwen/Qwen2.5-7B-Instruct"]}),
    ("a script that starts the engine through tini", {"command": ["sh", "-c", "exec tini -- vllm serve \"$@\"", "--"], "args": ["Qwen/Qwen2.5-7B-Instruct"]}),
]:
    c = {"name": "engine", "image": "vllm/vllm-openai:v0.8.5"}
    c.update(container)
    case("the engine reads the mount: " + name, "Pod", wrap("Pod", "engine", {"containers": [c]}), warnings=("now reads /var/lib/gpustack/model",))
for name, container, said in [
    ("KServe's server with a hub id", {"image": "kserve/huggingfaceserver:v0.15.2-gpu", "args": ["--model_name=llama3", "--model_id=meta-llama/Meta-Llama-3-8B-Instruct"]},
     '--model_id "meta-llama/Meta-Llama-3-8B-Instruct" dropped, --model_dir /var/lib/gpustack/model added'),
    ("KServe's server with a hub id at a revision beside its directory", {"image": "kserve/huggingfaceserver:v0.15.2",
     "args": ["--model_name", "llama3", "--model_id", "org/x", "--model_revision", "main", "--model_dir", "/mnt/models"]},
     '--model_id "org/x" dropped, --model_dir now reads /var/lib/gpustack/model'),
    ("KServe's server as its module, reading /mnt/models", {"command": ["python3", "-m", "huggingfaceserver"], "args": ["--model_name=llama3"]},
     "--model_dir /var/lib/gpustack/model added"),
]:
    c = {"name": "kserve-container"}
    c.update(container)
    case("the engine reads the mount: " + name, "Pod", wrap("Pod", "kserve", {"containers": [c]}), warnings=(said,))
for name, container, said in [
    ("TGI's launcher with a hub id at a revision", {"command": ["text-generation-launcher"], "args": ["--model-id", "org/x", "--revision", "main", "--port", "80"]},
     'the model argument "org/x" now reads /var/lib/gpustack/model; TGI serves it under any name a request gives'),
    ("TGI's image, --model-id=", {"image": "ghcr.io/huggingface/text-generation-inference:3.3.6", "args": ["--model-id=org/x"]},
     'the model argument "org/x" now reads /var/lib/gpustack/model'),
    ("TGI's image with its model in MODEL_ID", {"image": "ghcr.io/huggingface/text-generation-inference:3.3.6", "env": [{"name": "MODEL_ID", "value": "org/x"}]},
     '--model-id=/var/lib/gpustack/model added: TGI loads the image\'s weights, not MODEL_ID "org/x"'),
]:
    c = {"name": "tgi", "image": "i"}
    c.update(container)
    case("the engine reads the mount: " + name, "Pod", wrap("Pod", "tgi", {"containers": [c]}), warnings=(said,))
for name, container in [
    ("trtllm-serve serve with a hub id", {"command": ["trtllm-serve", "serve", "meta-llama/Llama-3.1-8B-Instruct", "--backend", "pytorch", "--revision", "main"]}),
    ("trtllm-serve, its model in args after options", {"command": ["trtllm-serve"], "args": ["--tp_size", "2", "--trust_remote_code", "/engines/llama"]}),
]:
    c = {"name": "trtllm", "image": "nvcr.io/nvidia/tensorrt-llm/release:1.0.0"}
    c.update(container)
    case("the engine reads the mount: " + name, "Pod", wrap("Pod", "trtllm", {"containers": [c]}),
         warnings=('now reads /var/lib/gpustack/model; TensorRT-LLM names it "model" (the directory\'s name) to clients',))
case("the engine reads the mount: TEI's router with a hub id", "Pod", wrap("Pod", "tei", {"containers": [{"name": "tei", "image": "i",
    "command": ["text-embeddings-router"], "args": ["--model-id=BAAI/bge-m3", "--revision=main"]}]}),
    warnings=('the model argument "BAAI/bge-m3" now reads /var/lib/gpustack/model; TEI serves it under any name a request gives',))
case("TGI already given the mount in MODEL_ID", "Pod", wrap("Pod", "tgi-mounted", {
    "volumes": [{"name": "gpustack-model", "image": {"reference": REF}}],
    "containers": [{"name": "tgi", "image": "ghcr.io/huggingface/text-generation-inference:3.3.6", "env": [{"name": "MODEL_ID", "value": MOUNT_PATH}],
                    "volumeMounts": [{"name": "gpustack-model", "mountPath": MOUNT_PATH, "readOnly": True}]}]}), expect_patch=False)
case("the engine already reads the mount", "Pod", wrap("Pod", "engine-mounted", {
    "volumes": [{"name": "gpustack-model", "image": {"reference": REF}}],
    "containers": [{"name": "e", "image": "vllm/vllm-openai:v0.8.5", "command": ["vllm", "serve", MOUNT_PATH + "/"],
                    "volumeMounts": [{"name": "gpustack-model", "mountPath": MOUNT_PATH, "readOnly": True}]}]}), expect_patch=False)
case("an engine in a shell string is warned about, not edited", "Pod", wrap("Pod", "engine-shell", {"containers": [{"name": "e", "image": "i",
    "command": ["sh", "-c", "vllm serve Qwen/Qwen2.5-7B-Instruct --download-dir /d"]}]}),
    warnings=("container \"e\": the model \"Qwen/Qwen2.5-7B-Instruct\" in a shell string is not rewritten, so the engine still fetches it from the hub", "container \"e\": a --download-dir inside a shell string is not removed"))
case("a download init container is warned about, not edited", "Pod", wrap("Pod", "download-step", {
    "initContainers": [{"name": "fetch", "image": "i", "command": ["huggingface-cli", "download"], "args": ["Qwen/Qwen2.5-7B-Instruct", "--local-dir", "/models"],
                        "env": [{"name": "HF_TOKEN", "value": "x"}], "volumeMounts": [{"name": "models", "mountPath": "/models"}]}],
    "containers": [{"name": "e", "image": "i", "volumeMounts": [{"name": "models", "mountPath": "/models"}]}],
    "volumes": [{"name": "models", "emptyDir": {}}]}),
    warnings=("container \"fetch\": huggingface-cli download still fetches from the hub",))
case("a model from a variable the delivery removes is served by its value", "Pod", wrap("Pod", "hf-model-id", {"containers": [{"name": "e", "image": "i",
    "command": ["python3", "-m", "vllm.entrypoints.openai.api_server"], "args": ["--model=$(HF_MODEL_ID)"],
    "env": [{"name": "HF_MODEL_ID", "value": "Qwen/Qwen2.5-7B-Instruct"}]}]}),
    warnings=('--served-model-name "Qwen/Qwen2.5-7B-Instruct" is added',))
case("a hub tokenizer stays, with a warning", "Pod", wrap("Pod", "tokenizer", {"containers": [{"name": "e", "image": "i",
    "command": ["vllm", "serve", "Qwen/Qwen2.5-7B-Instruct", "--tokenizer", "Qwen/Qwen2.5-7B-Instruct"]}]}),
    warnings=("container \"e\": --tokenizer \"Qwen/Qwen2.5-7B-Instruct\" names a hub repository",))
case("an engine whose model comes from its config file is told, not edited", "Pod", wrap("Pod", "config-file", {"containers": [{"name": "e",
    "image": "vllm/vllm-openai:v0.11.0", "args": ["--config", "/etc/vllm/serve.yaml"]}]}),
    warnings=('container "e": no model on the command line: the engine loads the one --config "/etc/vllm/serve.yaml" names; pass /var/lib/gpustack/model as the model',))
case("a container not selected keeps its model argument", "Pod", wrap("Pod", "unselected-engine", {"containers": [
    {"name": "a", "image": "i", "command": ["vllm", "serve", "Qwen/Qwen2.5-7B-Instruct"]},
    {"name": "b", "image": "i", "command": ["vllm", "serve", "Qwen/Qwen2.5-0.5B-Instruct"]}]}, {"gpustack.ai/model-containers": "a"}))
case("cache at the value of MODELSCOPE_CACHE", "Pod", wrap("Pod", "modelscope", {
    "volumes": [{"name": "ms", "emptyDir": {}}],
    "containers": [{"name": "c", "image": "i", "env": [{"name": "MODELSCOPE_CACHE", "value": "/cache/ms/"}], "volumeMounts": [{"name": "ms", "mountPath": "/cache/ms"}]}]}))
case("a PVC at a cache path is not a cache", "Pod", wrap("Pod", "pvc-cache-path", {
    "volumes": [{"name": "pvc", "persistentVolumeClaim": {"claimName": "c"}}],
    "containers": [{"name": "c", "image": "i", "volumeMounts": [{"name": "pvc", "mountPath": "/root/.cache/huggingface"}]}]}))
case("an emptyDir under a lookalike prefix is not a cache", "Pod", wrap("Pod", "lookalike", {
    "volumes": [{"name": "e", "emptyDir": {}}],
    "containers": [{"name": "c", "image": "i", "volumeMounts": [{"name": "e", "mountPath": "/root/.cache/huggingface-other"}]}]}))
case("env in any letter case", "Pod", wrap("Pod", "env-case", {"containers": [{"name": "c", "image": "i", "env": [
    {"name": "hf_token", "value": "x"}, {"name": "Http_Proxy", "value": "x"}, {"name": "all_proxy", "value": "x"}, {"name": "HFX", "value": "keep"},
    {"name": "MY_HF_TOKEN", "value": "keep"}]}]}))
case("a trailing --revision with no value", "Pod", wrap("Pod", "trailing-revision", {"containers": [{"name": "c", "image": "i", "args": ["serve", "--revision"]}]}))
case("--revision in command after its first element", "Pod", wrap("Pod", "command-revision", {"containers": [{"name": "c", "image": "i",
    "command": ["--revision", "vllm", "--revision", "x", "--revision=y", "--revisions=keep"]}]}))
env500 = [{"name": ("HF_VAR_%d" if i % 5 == 0 else "APP_VAR_%d") % i, "value": str(i)} for i in range(500)]
case("a 500-entry env list", "Pod", wrap("Pod", "env500", {"containers": [{"name": "c", "image": "i", "env": env500}]}))
case("keys holding ~ and / elsewhere in the object", "Pod", dict(wrap("Pod", "keys", {"containers": [{"name": "c", "image": "i",
    "env": [{"name": "HF_TOKEN", "value": "x"}]}], "nodeSelector": {"example.com/pool~a": "gpu", "a~1b/c~0": "x"}}),
    metadata=dict(opted_in_meta("keys", {"example.com/odd~key": "1", "a/b~c": "2"}))))

with open(FIXTURES + "/core.v1.Pod.json") as f:
    fixture = json.load(f)
fixture["metadata"]["labels"]["gpustack.ai/model-delivery"] = "image"
fixture["metadata"]["annotations"]["gpustack.ai/model-image"] = REF
fixture["metadata"]["annotations"].pop("gpustack.ai/model-containers", None)
case("the kubernetes/api Pod fixture, opted in", "Pod", fixture)

# image-aware placement: a Pod not pinned to a node prefers the warm nodes, beside its own affinity
rendered_pod = expected_object("Pod", wrap("Pod", "placed", mutated_spec()))
for label, affinity in [
    ("no affinity", None),
    ("pod anti-affinity kept", {"podAntiAffinity": {PREFERRED: [{"weight": 50, "podAffinityTerm": {
        "labelSelector": {"matchLabels": {"app": "qwen"}}, "topologyKey": "kubernetes.io/hostname"}}]}}),
    ("required node affinity over a pool kept", {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "nvidia.com/gpu.product", "operator": "In", "values": ["NVIDIA-H100-80GB-HBM3"]}]}]}}}),
    ("preferred terms of its own kept", {"nodeAffinity": {PREFERRED: [{"weight": 10, "preference": {
        "matchExpressions": [{"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["us-west-2a"]}]}}]}}),
    ("pod affinity kept", {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{
        "labelSelector": {"matchLabels": {"app": "cache"}}, "topologyKey": "kubernetes.io/hostname"}]}}),
]:
    pod = copy.deepcopy(rendered_pod)
    if affinity is not None:
        pod["spec"]["affinity"] = affinity
    case("placement: %s" % label, "Pod", pod, placed=True)
case("placement with the rendering of a download-era Pod", "Pod", wrap("Pod", "placed-vllm", vllm_spec()),
     warnings=("envFrom is not inspected",), placed=True)
pinned_pod = copy.deepcopy(rendered_pod)
pinned_pod["spec"]["nodeName"] = "gpu-c"
case("placement: a Pod pinned to a node is left to the node check", "Pod", pinned_pod, expect_patch=False, placed=True)
case("placement: a workload's template gets none", "Deployment", expected_object("Deployment", wrap("Deployment", "tmpl", mutated_spec())),
     expect_patch=False, placed=True)

if len(sys.argv) > 3:
    for path in sorted(glob.glob(os.path.join(sys.argv[3], "*.json"))):
        if path.endswith(".response.json"):
            continue
        with open(path) as f:
            request = json.load(f).get("request", {})
        obj, kind = request.get("object"), request.get("kind", {}).get("kind")
        labels = ((obj or {}).get("metadata") or {}).get("labels") or {}
        ref = ((obj or {}).get("metadata") or {}).get("annotations", {}).get("gpustack.ai/model-image", "")
        if kind in POD_SPEC_PATHS and labels.get("gpustack.ai/model-delivery") == "image" and "@sha256:" in ref and "two-weight" not in path \
                and "mount-inside-model" not in path:  # the refused ones
            changes = normalized(expected_object(kind, obj)) != normalized(obj)
            case("example %s" % os.path.basename(path), kind, obj, expect_patch=changes)

# Manifests shaped as the public vLLM, SGLang, LeaderWorkerSet and KServe
# examples are written (tests/fixtures/serving): each opted-in object of a
# kind the webhook renders is a case.
for path in sorted(glob.glob(os.path.join(FIXTURES, "serving", "*.yaml"))):
    with open(path) as f:
        for obj in yaml.safe_load_all(f):
            labels = ((obj or {}).get("metadata") or {}).get("labels") or {}
            if obj and obj.get("kind") in POD_SPEC_PATHS and labels.get("gpustack.ai/model-delivery") == "image":
                case("serving manifest %s: %s %s" % (os.path.basename(path), obj["kind"], obj["metadata"]["name"]), obj["kind"], obj)

passed = failed = 0
for name, kind, obj, expect_patch, warnings, placed in CASES:
    nodes, warm = (NODES_FILE, WARM) if placed else (None, None)
    try:
        resp, ops = review(kind, obj, nodes=nodes)
        assert resp["allowed"] is True, resp.get("status")
        for w in warnings:
            assert any(w in x for x in resp.get("warnings", [])), "missing warning %r in %r" % (w, resp.get("warnings"))
        if not expect_patch:
            assert ops is None, "expected no patch, got %s" % ops
            patched = obj
        else:
            assert ops is not None, "expected a patch"
            check_shape(ops)
            patched = jsonpatch.apply_patch(obj, ops)
        expected = normalized(expected_object(kind, obj, warm=warm))
        assert normalized(patched) == expected, "patched object differs from the rules' object:\n%s" % json.dumps(
            jsonpatch.make_patch(expected, normalized(patched)).patch)[:2000]
        validate_schema(kind, normalized(patched))  # nulls are absent members to the apiserver
        resp2, ops2 = review(kind, patched, nodes=nodes)
        assert resp2["allowed"] is True and ops2 is None, "a second pass must change nothing: %s" % ops2
        # and again after the apiserver defaults pullPolicy
        for path in POD_SPEC_PATHS[kind]:
            spec = dig(patched, path)
            for v in (spec or {}).get("volumes") or []:
                if v.get("name") == "gpustack-model":
                    v["image"]["pullPolicy"] = "IfNotPresent"
        assert review(kind, patched, nodes=nodes)[1] is None, "the defaulted pullPolicy must not bring a patch back"
        passed += 1
    except Exception as e:  # report every case, then fail
        failed += 1
        print("FAIL %s: %s" % (name, e))

SERVED.stop()
print("patch conformance: %d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
