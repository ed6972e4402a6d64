"""The container image's build stage has every file its build reads.

The Dockerfile copies a chosen few paths into the build stage, and a file the
build reads that is not among them fails `docker build` at once (CMake reads
manifests/base/webhooks.yaml at configure time, for the test mode's shipped
webhook configurations). Without a docker engine here, this copies exactly
what the build stage's COPY lines copy into an empty directory, runs the
stage's CMake configure there with its own flags, and checks that every
script its RUN lines call was copied.
"""
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

repo = sys.argv[1]


def build_stage(dockerfile):
    """The build stage's instructions, continuation lines joined."""
    joined = re.sub(r"\\\n", " ", dockerfile)
    stages = re.split(r"^FROM ", joined, flags=re.M)[1:]
    return [line.strip() for line in stages[0].splitlines()[1:] if line.strip() and not line.lstrip().startswith("#")]


def copy_context(instructions, context):
    workdir = "/"
    for line in instructions:
        word, _, rest = line.partition(" ")
        if word == "WORKDIR":
            workdir = rest.strip()
        elif word == "COPY":
            *sources, target = shlex.split(rest)
            for source in sources:
                origin = os.path.join(repo, source)
                if not os.path.exists(origin):
                    return f"COPY {source}: no such path in the repository"
                dest = os.path.join(context, os.path.relpath(os.path.join(workdir, target), "/src"))
                if target.endswith("/") or len(sources) > 1:
                    dest = os.path.join(dest, os.path.basename(source.rstrip("/")))
                os.makedirs(os.path.dirname(dest), exist_ok=True)
                if os.path.isdir(origin):
                    shutil.copytree(origin, dest)
                else:
                    shutil.copy(origin, dest)
    return None


def main():
    with open(os.path.join(repo, "Dockerfile")) as f:
        instructions = build_stage(f.read())
    failures = []
    with tempfile.TemporaryDirectory() as context:
        problem = copy_context(instructions, context)
        if problem:
            failures.append(problem)
        commands = [c.strip() for line in instructions if line.startswith("RUN ") for c in line[4:].split("&&")]
        configure = [c for c in commands if c.startswith("cmake -S")]
        if not configure:
            failures.append("the build stage runs no CMake configure")
        for command in configure:
            done = subprocess.run(command, shell=True, cwd=context, capture_output=True, text=True)
            if done.returncode != 0:
                failures.append(f"`{command}` fails in the build stage's files:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
        for command in commands:
            for script in re.findall(r"\bbash (\S+\.sh)", command):
                if not os.path.isfile(os.path.join(context, script)):
                    failures.append(f"`{command}` calls {script}, which the build stage does not copy")
    for failure in failures:
        print("FAIL", failure)
    print(f"container build context: {len(failures)} failed")
    return 1 if failures else 0


sys.exit(main())
