// The delivery rendered into opted-in Pods and workloads, judged on views.
#include "model_image_webhook/policy_pod.hpp"

#include "registry_stand_in.hpp"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace miw;

namespace {

const std::string kRef = "registry.example.com/team/qwen@sha256:9372c470eeadd5ecd9c3c74c2b3cb633f8e2f2fad799250a0f70d652b6b825e4";
const std::string kVolume = R"({"name":"gpustack-model","image":{"reference":")" + kRef + R"("}})";
const std::string kMount = R"({"name":"gpustack-model","mountPath":"/var/lib/gpustack/model","readOnly":true})";

ContainerView container(std::string_view name) {
    ContainerView c;
    c.name = name;
    return c;
}

PodSpecView spec_at(std::string pointer = "/spec") {
    PodSpecView s;
    s.field_path = pointer.substr(1);
    std::replace(s.field_path.begin(), s.field_path.end(), '/', '.');
    s.pointer = std::move(pointer);
    return s;
}

WorkloadView opted_in(std::vector<PodSpecView> specs, bool is_pod = true, std::string_view ref = kRef) {
    WorkloadView w;
    w.is_pod = is_pod;
    w.opt_in_label = "image";
    w.has_model_image = true;
    w.model_image = ref;
    w.pod_specs = std::move(specs);
    return w;
}

AdmissionRequest request(Operation op = Operation::create, std::string_view kind = "Pod") {
    AdmissionRequest req;
    req.uid = "u";
    req.kind = {kind == "Pod" ? "" : "apps", "v1", kind};
    req.name = "qwen";
    req.operation = op;
    return req;
}

PolicyConfig config(std::string_view kube = "v1.35.0") {
    PolicyConfig c;
    c.apiserver = ApiserverVersion::from_text(kube);
    return c;
}

VolumeMountView mount(std::string_view name, std::string_view path, bool read_only = false) {
    VolumeMountView m;
    m.name = name;
    m.mount_path = path;
    m.read_only = read_only;
    return m;
}

VolumeView empty_dir(std::string_view name) {
    VolumeView v;
    v.name = name;
    v.empty_dir = true;
    return v;
}

VolumeView model_volume(std::string_view ref, std::string_view pull_policy = "") {
    VolumeView v;
    v.name = "gpustack-model";
    v.image = true;
    v.image_reference = ref;
    v.image_pull_policy = pull_policy;
    v.only_image_source = true;
    return v;
}

ArgView arg(std::string_view text) { return ArgView{true, text}; }

}  // namespace

TEST_CASE("objects that do not opt in are left alone", "[policy_pod]") {
    PodSpecView s = spec_at();
    s.containers.push_back(container("c"));
    WorkloadView w = opted_in({s});
    w.opt_in_label = "";
    CHECK(render_model_delivery(request(), w, config()).patch.empty());
    w.opt_in_label = "Image";
    const Decision d = render_model_delivery(request(), w, config());
    CHECK((d.allowed && d.patch.empty() && d.warnings.empty()));
}

TEST_CASE("the image an opted-in object names is looked up in its registry", "[policy_pod]") {
    const std::string digest = "@sha256:9372c470eeadd5ecd9c3c74c2b3cb633f8e2f2fad799250a0f70d652b6b825e4";
    const std::string gone = "r.io/gone" + digest, forged = "r.io/forged" + digest, found = "r.io/qwen" + digest;
    struct Case {
        const char* name;
        std::string ref;
        RegistryCheck mode;
        bool being_deleted;
        bool allowed;
        int lookups;
        const char* rule;
        const char* says;
    };
    const std::vector<Case> cases = {
        {"an unknown image is refused under deny", gone, RegistryCheck::deny, false, false, 1, "registry-manifest-unknown",
         "metadata.annotations[gpustack.ai/model-image]: \"r.io/gone@sha256:9372c470eeadd5ecd9c3c74c2b3cb633f8e2f2fad799250a0f70d652b6b825e4\": the registry has no manifest"},
        {"content of another digest is refused under deny", forged, RegistryCheck::deny, false, false, 1, "registry-digest-mismatch", "hashes to another digest"},
        {"warn delivers it, and says what deny would do", gone, RegistryCheck::warn, false, true, 1, "", "would refuse this (registry-manifest-unknown)"},
        {"a found image is delivered with its size", found, RegistryCheck::deny, false, true, 1, "", "the model image is 2.0 GiB compressed; about 4.5 GiB on the node's disk"},
        {"an object being deleted is not looked up", gone, RegistryCheck::deny, true, true, 0, "", ""},
        {"off asks nothing", gone, RegistryCheck::off, false, true, 0, "", ""},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.name) {
            PodSpecView s = spec_at();
            s.containers.push_back(container("vllm"));
            WorkloadView w = opted_in({s}, true, c.ref);
            w.being_deleted = c.being_deleted;
            PolicyConfig policy = config();
            policy.registry_check = c.mode;
            const test::RegistryByRepository registry;
            const Decision d = render_model_delivery(request(), w, policy, nullptr, nullptr, &registry);
            CHECK(d.allowed == c.allowed);
            CHECK(registry.calls == c.lookups);
            CHECK(d.rule_annotation() == c.rule);
            if (!c.allowed) CHECK(d.code == 403);
            if (c.allowed) CHECK_FALSE(d.patch.empty());
            std::string warnings;
            for (const auto& warning : d.warnings) warnings += warning + "\n";
            CHECK_THAT(c.allowed ? warnings : d.message, Catch::Contains(c.says));
        }
    }
}

TEST_CASE("a digest is looked up with each pod spec's pull secrets, the same ones once", "[policy_pod]") {
    struct Spec {
        std::vector<std::string_view> secrets;
        std::string_view account;
    };
    struct Case {
        const char* name;
        std::vector<Spec> specs;
        std::vector<std::string> pullers;
    };
    const Case cases[] = {
        {"a Pod's own secrets", {{{"regcred"}, "puller"}}, {"team-a|regcred|puller"}},
        {"no secrets: its service account's", {{{}, "puller"}}, {"team-a||puller"}},
        {"neither: the default service account's", {{{}, ""}}, {"team-a||"}},
        {"leader and worker templates alike: one look", {{{"regcred"}, ""}, {{"regcred"}, ""}}, {"team-a|regcred|"}},
        {"leader and worker templates with their own", {{{"leader-cred"}, ""}, {{"worker-cred"}, ""}}, {"team-a|leader-cred|", "team-a|worker-cred|"}},
    };
    for (const Case& c : cases) {
        DYNAMIC_SECTION(c.name) {
            std::vector<PodSpecView> specs;
            for (std::size_t i = 0; i < c.specs.size(); ++i) {
                PodSpecView s = spec_at("/spec/template" + std::to_string(i) + "/spec");
                s.containers.push_back(container("vllm"));
                s.image_pull_secrets = c.specs[i].secrets;
                s.service_account_name = c.specs[i].account;
                specs.push_back(std::move(s));
            }
            AdmissionRequest req = request(Operation::create, "LeaderWorkerSet");
            req.namespace_name = "team-a";
            PolicyConfig policy = config();
            policy.registry_check = RegistryCheck::deny;
            const test::RegistryByRepository registry;
            const Decision d = render_model_delivery(req, opted_in(std::move(specs), false), policy, nullptr, nullptr, &registry);
            CHECK(d.allowed);
            CHECK(registry.pullers == c.pullers);
        }
    }
}

TEST_CASE("a bare Pod gets the volume and the mount as whole arrays", "[policy_pod]") {
    PodSpecView s = spec_at();
    s.containers.push_back(container("vllm"));
    const Decision d = render_model_delivery(request(), opted_in({s}), config());
    CHECK(d.allowed);
    CHECK(d.patch == R"([{"op":"add","path":"/spec/volumes","value":[)" + kVolume + R"(]},{"op":"add","path":"/spec/containers/0/volumeMounts","value":[)" +
                         kMount + "]}]");
}

TEST_CASE("the download-era settings go, in a deterministic order", "[policy_pod]") {
    PodSpecView s = spec_at("/spec/template/spec");
    s.has_volumes = true;
    s.volumes = {empty_dir("hf"), empty_dir("shm"), empty_dir("cache")};
    ContainerView init = container("fetch");
    init.has_env = true;
    init.env = {{"HF_TOKEN", false, {}}};
    init.has_volume_mounts = true;
    init.volume_mounts = {mount("hf", "/root/.cache/huggingface")};
    ContainerView c = container("vllm");
    c.has_env = true;
    c.env = {{"HF_HOME", true, "/cache/"}, {"PORT", true, "8000"}, {"https_proxy", true, "http://p"}};
    c.has_volume_mounts = true;
    c.volume_mounts = {mount("shm", "/dev/shm"), mount("cache", "/cache"), mount("hf", "/root/.cache/huggingface/hub")};
    c.args = {arg("--model"), arg("/var/lib/gpustack/model"), arg("--revision"), arg("main"), arg("--revision=abc")};
    c.command = {arg("--revision"), arg("serve"), arg("--revision"), arg("x")};
    s.init_containers = {init};
    s.containers = {c};
    const Decision d = render_model_delivery(request(Operation::create, "Deployment"), opted_in({s}, false), config());
    REQUIRE(d.allowed);
    const std::string b = "/spec/template/spec";
    CHECK(d.patch == "[" R"({"op":"remove","path":")" + b + R"(/volumes/2"},{"op":"remove","path":")" + b + R"(/volumes/0"},)" R"({"op":"add","path":")" + b +
                         R"(/volumes/-","value":)" + kVolume + "}," R"({"op":"remove","path":")" + b + R"(/initContainers/0/volumeMounts/0"},)"
                         R"({"op":"remove","path":")" + b + R"(/initContainers/0/env/0"},)" R"({"op":"remove","path":")" + b +
                         R"(/containers/0/volumeMounts/2"},{"op":"remove","path":")" + b + R"(/containers/0/volumeMounts/1"},)"
                         R"({"op":"add","path":")" + b + R"(/containers/0/volumeMounts/-","value":)" + kMount + "}," R"({"op":"remove","path":")" + b +
                         R"(/containers/0/env/2"},{"op":"remove","path":")" + b + R"(/containers/0/env/0"},)" R"({"op":"remove","path":")" + b +
                         R"(/containers/0/args/4"},{"op":"remove","path":")" + b + R"(/containers/0/args/3"},{"op":"remove","path":")" + b +
                         R"(/containers/0/args/2"},)" R"({"op":"remove","path":")" + b + R"(/containers/0/command/3"},{"op":"remove","path":")" + b +
                         R"(/containers/0/command/2"}])");
}

TEST_CASE("existing delivery pieces are corrected, never duplicated", "[policy_pod]") {
    struct Case {
        const char* name;
        std::vector<VolumeView> volumes;
        std::vector<VolumeMountView> mounts;
        std::string patch;
    };
    VolumeView other_image = model_volume("r.io/other@sha256:" + std::string(64, 'a'));
    VolumeView with_policy_always = model_volume(kRef, "Always");
    VolumeView with_extra_source = model_volume(kRef);
    with_extra_source.only_image_source = false;
    VolumeMountView sub_path = mount("gpustack-model", "/var/lib/gpustack/model", true);
    sub_path.has_other_settings = true;
    static const std::string right = "/var/lib/gpustack/model";
    const std::vector<Case> cases = {
        {"the delivery as rendered", {model_volume(kRef)}, {mount("gpustack-model", right, true)}, ""},
        {"the delivery after pullPolicy defaulting", {model_volume(kRef, "IfNotPresent")}, {mount("gpustack-model", right, true)}, ""},
        {"another image", {other_image}, {mount("gpustack-model", right, true)}, R"([{"op":"replace","path":"/spec/volumes/0","value":)" + kVolume + "}]"},
        {"pullPolicy Always, the same reference: left alone", {with_policy_always}, {mount("gpustack-model", right, true)}, ""},
        {"a second volume source", {with_extra_source}, {mount("gpustack-model", right, true)}, R"([{"op":"replace","path":"/spec/volumes/0","value":)" + kVolume + "}]"},
        {"a read-write mount", {model_volume(kRef)}, {mount("gpustack-model", right, false)},
         R"([{"op":"replace","path":"/spec/containers/0/volumeMounts/0","value":)" + kMount + "}]"},
        {"a mount elsewhere", {model_volume(kRef)}, {mount("gpustack-model", "/models", true)},
         R"([{"op":"replace","path":"/spec/containers/0/volumeMounts/0","value":)" + kMount + "}]"},
        {"a subPath mount", {model_volume(kRef)}, {sub_path}, R"([{"op":"replace","path":"/spec/containers/0/volumeMounts/0","value":)" + kMount + "}]"},
        {"two mounts of the volume", {model_volume(kRef)}, {mount("x", "/x"), mount("gpustack-model", "/a"), mount("gpustack-model", right, true)},
         R"([{"op":"remove","path":"/spec/containers/0/volumeMounts/2"},{"op":"replace","path":"/spec/containers/0/volumeMounts/1","value":)" + kMount + "}]"},
        {"a cache removed before the model volume's index", {empty_dir("gpustack-model-cache"), other_image}, {mount("gpustack-model", right, true)},
         R"([{"op":"remove","path":"/spec/volumes/0"},{"op":"replace","path":"/spec/volumes/0","value":)" + kVolume + "}]"},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.name) {
            PodSpecView s = spec_at();
            s.has_volumes = true;
            s.volumes = c.volumes;
            ContainerView ctr = container("c");
            ctr.has_volume_mounts = true;
            ctr.volume_mounts = c.mounts;
            s.containers = {ctr};
            const Decision d = render_model_delivery(request(), opted_in({s}), config());
            CHECK(d.allowed);
            CHECK(d.patch == c.patch);
        }
    }
}

TEST_CASE("cache volumes are found by name, path and cache variables", "[policy_pod]") {
    struct Case {
        const char* name;
        VolumeView volume;
        std::string_view mount_path;
        std::vector<EnvVarView> env;
        bool removed;
    };
    VolumeView pvc;
    pvc.name = "p";
    VolumeView named_cache;
    named_cache.name = "gpustack-model-cache";
    const std::vector<Case> cases = {
        {"gpustack-model-cache of any type", named_cache, "/anything", {}, true},
        {"emptyDir at the model-cache path", empty_dir("e"), "/var/lib/gpustack/model-cache", {}, true},
        {"emptyDir at the model path", empty_dir("e"), "/var/lib/gpustack/model/", {}, true},
        {"emptyDir at the huggingface cache", empty_dir("e"), "/root/.cache/huggingface", {}, true},
        {"emptyDir under the modelscope cache", empty_dir("e"), "/root/.cache/modelscope/hub", {}, true},
        {"emptyDir at HF_HUB_CACHE", empty_dir("e"), "/hub", {{"HF_HUB_CACHE", true, "/hub/"}}, true},
        {"emptyDir at TRANSFORMERS_CACHE", empty_dir("e"), "/tc", {{"TRANSFORMERS_CACHE", true, "/tc"}}, true},
        {"emptyDir at HUGGINGFACE_HUB_CACHE", empty_dir("e"), "/hh", {{"HUGGINGFACE_HUB_CACHE", true, "/hh"}}, true},
        {"emptyDir elsewhere", empty_dir("e"), "/scratch", {}, false},
        {"emptyDir at a lookalike path", empty_dir("e"), "/root/.cache/huggingfacex", {}, false},
        {"emptyDir at a cache variable from valueFrom", empty_dir("e"), "/hub", {{"HF_HOME", false, {}}}, false},
        {"emptyDir at a lowercase variable's value", empty_dir("e"), "/hub", {{"hf_home", true, "/hub"}}, false},
        {"a PVC at a cache path", pvc, "/root/.cache/huggingface", {}, false},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.name) {
            PodSpecView s = spec_at();
            s.has_volumes = true;
            s.volumes = {c.volume};
            ContainerView ctr = container("c");
            ctr.has_volume_mounts = true;
            ctr.volume_mounts = {mount(c.volume.name, c.mount_path)};
            ctr.has_env = !c.env.empty();
            ctr.env = c.env;
            s.containers = {ctr};
            const Decision d = render_model_delivery(request(), opted_in({s}), config());
            REQUIRE(d.allowed);
            CHECK((d.patch.find(R"({"op":"remove","path":"/spec/volumes/0"})") != std::string::npos) == c.removed);
            CHECK((d.patch.find(R"({"op":"remove","path":"/spec/containers/0/volumeMounts/0"})") != std::string::npos) == c.removed);
        }
    }
}

TEST_CASE("environment variables that reach the hub go", "[policy_pod]") {
    // Which names are the download environment is download_env_test's table.
    const std::vector<std::pair<const char*, bool>> names = {{"HF_TOKEN", true}, {"https_proxy", true}, {"MY_HF_TOKEN", false}};
    for (const auto& [name, removed] : names) {
        DYNAMIC_SECTION("\"" << name << "\"") {
            PodSpecView s = spec_at();
            ContainerView c = container("c");
            c.has_env = true;
            c.env = {{name, true, "v"}};
            c.has_volume_mounts = true;
            c.volume_mounts = {mount("gpustack-model", "/var/lib/gpustack/model", true)};
            s.has_volumes = true;
            s.volumes = {model_volume(kRef)};
            s.containers = {c};
            const Decision d = render_model_delivery(request(), opted_in({s}), config());
            CHECK(d.patch == (removed ? R"([{"op":"remove","path":"/spec/containers/0/env/0"}])" : ""));
        }
    }
}

TEST_CASE("warnings say what could not be cleaned", "[policy_pod]") {
    struct Case {
        const char* name;
        std::vector<ArgView> args;
        std::vector<ArgView> command;
        bool env_from;
        std::vector<std::string> warnings;
    };
    const std::vector<Case> cases = {
        {"envFrom", {}, {}, true, {"container \"c\": envFrom is not inspected; HF_*, MODELSCOPE_* or proxy variables may still come from it"}},
        {"--revision inside sh -c", {arg("vllm serve /m --revision main")}, {}, false,
         {"container \"c\": a --revision inside a shell string is not removed",
          "container \"c\": the model \"/m\" in a shell string is not rewritten, so the engine still reads that path, not the image; run the engine in exec form, or point it at /var/lib/gpustack/model"}},
        {"--download-dir inside sh -c", {}, {arg("sh"), arg("-c"), arg("python3 -m sglang.launch_server --model-path /var/lib/gpustack/model --download-dir /d")},
         false, {"container \"c\": a --download-dir inside a shell string is not removed"}},
        {"--revision= inside a shell string", {arg("x;--revision=main")}, {}, false, {"container \"c\": a --revision inside a shell string is not removed"}},
        {"--revision quoted in a shell string", {arg("exec vllm \"--revision\" x")}, {}, false, {"container \"c\": a --revision inside a shell string is not removed"}},
        {"--revision inside the command's script", {}, {arg("sh"), arg("-c"), arg("run --revision x")}, false,
         {"container \"c\": a --revision inside a shell string is not removed"}},
        {"a lookalike flag", {arg("run --revisions x"), arg("x--revision")}, {}, false, {}},
        {"two flags in one string, in the list's order", {arg("vllm serve /var/lib/gpustack/model --download-dir /d --revision main")}, {}, false,
         {"container \"c\": a --revision inside a shell string is not removed", "container \"c\": a --download-dir inside a shell string is not removed"}},
        {"a flag with its value that names another after a space", {arg("--download-dir=/d --revision main")}, {}, false,
         {"container \"c\": a --revision inside a shell string is not removed"}},
        {"the program itself is not searched", {}, {arg("a --revision b")}, false, {}},
        {"a plain flag is removed, not warned about", {arg("--revision"), arg("main")}, {}, false, {}},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.name) {
            PodSpecView s = spec_at();
            ContainerView ctr = container("c");
            ctr.args = c.args;
            ctr.command = c.command;
            ctr.has_env_from = c.env_from;
            s.containers = {ctr};
            const Decision d = render_model_delivery(request(), opted_in({s}), config());
            CHECK(d.allowed);
            CHECK(d.warnings == c.warnings);
        }
    }
}

TEST_CASE("the containers annotation limits the mount", "[policy_pod]") {
    PodSpecView s = spec_at();
    s.containers = {container("a"), container("b"), container("c")};
    ContainerView init = container("a");
    s.init_containers = {init};
    WorkloadView w = opted_in({s});
    w.has_model_containers = true;
    w.model_containers = " c, a ,,missing ";
    const Decision d = render_model_delivery(request(), w, config());
    CHECK(d.patch == R"([{"op":"add","path":"/spec/volumes","value":[)" + kVolume + R"(]},{"op":"add","path":"/spec/containers/0/volumeMounts","value":[)" + kMount +
                         R"(]},{"op":"add","path":"/spec/containers/2/volumeMounts","value":[)" + kMount + "]}]");
    REQUIRE(d.warnings.size() == 1);
    CHECK(d.warnings[0] == "annotation gpustack.ai/model-containers names \"missing\", which is not a container of spec; it gets no mount");
}

TEST_CASE("long lists of volumes, containers and names: each found, the warnings kept to what the apiserver shows", "[policy_pod]") {
    SECTION("cache volumes named out of order are each found, by their own mount") {
        VolumeView pvc;
        pvc.name = "m";
        PodSpecView s = spec_at();
        s.has_volumes = true;
        s.volumes = {empty_dir("z"), empty_dir("a"), pvc, empty_dir("b")};
        ContainerView ctr = container("c");
        ctr.has_volume_mounts = true;
        ctr.volume_mounts = {mount("b", "/scratch"), mount("z", "/root/.cache/huggingface"), mount("m", "/root/.cache/huggingface/hub"),
                             mount("a", "/root/.cache/modelscope")};
        s.containers = {ctr};
        const Decision d = render_model_delivery(request(), opted_in({s}), config());
        CHECK(d.patch == R"([{"op":"remove","path":"/spec/volumes/1"},{"op":"remove","path":"/spec/volumes/0"},{"op":"add","path":"/spec/volumes/-","value":)" +
                             kVolume + R"(},{"op":"remove","path":"/spec/containers/0/volumeMounts/3"},{"op":"remove","path":"/spec/containers/0/volumeMounts/1"},)" +
                             R"({"op":"add","path":"/spec/containers/0/volumeMounts/-","value":)" + kMount + "}]");
    }
    SECTION("a warning for each of 200 containers: 64 of them, then one line for the rest") {
        std::vector<std::string> names;
        for (int i = 0; i < 200; ++i) names.push_back("c" + std::to_string(i));
        PodSpecView s = spec_at();
        for (const auto& name : names) {
            ContainerView ctr = container(name);
            ctr.has_env_from = true;
            s.containers.push_back(ctr);
        }
        const Decision d = render_model_delivery(request(), opted_in({s}), config());
        REQUIRE(d.warnings.size() == 65);
        CHECK(d.warnings[0].rfind("container \"c0\": envFrom is not inspected", 0) == 0);
        CHECK(d.warnings[63].rfind("container \"c63\": envFrom is not inspected", 0) == 0);
        CHECK(d.warnings[64] == "more warnings than 64: the rest are not shown");
    }
    SECTION("a containers annotation of a hundred names, three unknown, some twice") {
        std::vector<std::string> names;
        std::string annotation;
        for (int i = 99; i >= 0; --i) names.push_back("c" + std::to_string(i));
        for (const auto& name : names) annotation += name + ",";
        annotation += "x2,c5,x1,x2,x0";
        PodSpecView s = spec_at();
        for (const auto& name : names) s.containers.push_back(container(name));
        WorkloadView w = opted_in({s});
        w.has_model_containers = true;
        w.model_containers = annotation;
        const Decision d = render_model_delivery(request(), w, config());
        std::size_t mounted = 0;
        for (std::size_t at = d.patch.find("/volumeMounts\""); at != std::string::npos; at = d.patch.find("/volumeMounts\"", at + 1)) ++mounted;
        CHECK(mounted == 100);
        REQUIRE(d.warnings.size() == 3);
        CHECK(d.warnings[0].find("names \"x2\"") != std::string::npos);
        CHECK(d.warnings[1].find("names \"x1\"") != std::string::npos);
        CHECK(d.warnings[2].find("names \"x0\"") != std::string::npos);
    }
}

TEST_CASE("refusals of opted-in objects", "[policy_pod]") {
    PodSpecView s = spec_at();
    s.containers = {container("c")};
    SECTION("a tag in the annotation") {
        const Decision d = render_model_delivery(request(), opted_in({s}, true, "registry.example.com/team/qwen:v1"), config());
        CHECK_FALSE(d.allowed);
        CHECK(d.code == 403);
        CHECK(d.rule_annotation() == "digest-required");
        CHECK_THAT(d.message, Catch::StartsWith("metadata.annotations[gpustack.ai/model-image]: Invalid value: \"registry.example.com/team/qwen:v1\": no digest"));
        CHECK(d.patch.empty());
    }
    SECTION("a pattern in the annotation") {
        const Decision d = render_model_delivery(request(), opted_in({s}, true, "registry.example.com/team/*"), config());
        CHECK(d.rule_annotation() == "reference-pattern");
    }
    SECTION("an apiserver below the floor") {
        const Decision d = render_model_delivery(request(), opted_in({s}), config("v1.34.0"));
        CHECK_FALSE(d.allowed);
        CHECK(d.rule_annotation() == "apiserver-floor");
        CHECK_THAT(d.message, Catch::Contains("drops a Pod's image volume silently"));
    }
    SECTION("a second source of weights") {
        PodSpecView two = spec_at("/spec/template/spec");
        VolumeView pvc;
        pvc.name = "weights";
        two.has_volumes = true;
        two.volumes = {pvc};
        ContainerView c = container("vllm");
        c.volume_mounts = {mount("weights", "/var/lib/gpustack/model/")};
        two.containers = {container("side"), c};
        const Decision d = render_model_delivery(request(Operation::create, "Deployment"), opted_in({two}, false), config());
        CHECK_FALSE(d.allowed);
        CHECK(d.code == 403);
        CHECK(d.rule_annotation() == "two-weight-sources");
        CHECK(d.message ==
              "container \"vllm\" (spec.template.spec.containers[1]) mounts volume \"weights\" at /var/lib/gpustack/model itself: that is a second source of "
              "weights beside the model image; remove that mount or move it elsewhere, or remove the label gpustack.ai/model-delivery to keep the volume "
              "instead of the image");
    }
    SECTION("an emptyDir at the model path is a cache, not a second source") {
        PodSpecView cache = spec_at();
        cache.has_volumes = true;
        cache.volumes = {empty_dir("old")};
        ContainerView c = container("c");
        c.has_volume_mounts = true;
        c.volume_mounts = {mount("old", "/var/lib/gpustack/model")};
        cache.containers = {c};
        const Decision d = render_model_delivery(request(), opted_in({cache}), config());
        CHECK(d.allowed);
        CHECK(d.patch == R"([{"op":"remove","path":"/spec/volumes/0"},{"op":"add","path":"/spec/volumes/-","value":)" + kVolume +
                             R"(},{"op":"remove","path":"/spec/containers/0/volumeMounts/0"},{"op":"add","path":"/spec/containers/0/volumeMounts/-","value":)" + kMount +
                             "}]");
    }
}

TEST_CASE("a workload's template is rendered on update as on create", "[policy_pod]") {
    PodSpecView s = spec_at();
    s.containers = {container("c")};
    CHECK_FALSE(render_model_delivery(request(Operation::create), opted_in({s}), config()).patch.empty());
    CHECK_FALSE(render_model_delivery(request(Operation::update, "Deployment"), opted_in({s}, false), config()).patch.empty());
}

TEST_CASE("an opt-in label without the image annotation mounts nothing and says so", "[policy_pod]") {
    PodSpecView s = spec_at();
    s.containers = {container("c")};
    WorkloadView w = opted_in({s});
    w.has_model_image = false;
    const Decision d = render_model_delivery(request(), w, config());
    CHECK(d.allowed);
    CHECK(d.patch.empty());
    REQUIRE(d.warnings.size() == 1);
    CHECK_THAT(d.warnings[0], Catch::Contains("annotation gpustack.ai/model-image (or gpustack.ai/model-artifact) is missing or empty"));
}

TEST_CASE("a tag beside the digest in the annotation is warned about", "[policy_pod]") {
    PodSpecView s = spec_at();
    s.containers = {container("c")};
    const std::string ref = "registry.example.com/team/qwen:v1@sha256:9372c470eeadd5ecd9c3c74c2b3cb633f8e2f2fad799250a0f70d652b6b825e4";
    const Decision d = render_model_delivery(request(), opted_in({s}, true, ref), config());
    CHECK(d.allowed);
    REQUIRE(d.warnings.size() == 1);
    CHECK(d.warnings[0] == "metadata.annotations[gpustack.ai/model-image]: tag \"v1\" is ignored; the digest sha256:9372c470eead... is what is pulled");
}

TEST_CASE("another volume at, inside or around the model or cache path is a second source of weights", "[policy_pod]") {
    struct Case {
        const char* name;
        const char* mount_path;
        bool empty_dir;  // an emptyDir at a cache path is a cache, removed
        const char* says;  // "" when allowed
    };
    const std::vector<Case> cases = {
        {"at the model path", "/var/lib/gpustack/model", false, "at /var/lib/gpustack/model itself"},
        {"inside the model path", "/var/lib/gpustack/model/lora", false, "at \"/var/lib/gpustack/model/lora\", inside /var/lib/gpustack/model"},
        {"around the model path", "/var/lib/gpustack", false, "at \"/var/lib/gpustack\", around /var/lib/gpustack/model"},
        {"around everything", "/", false, "at \"/\", around /var/lib/gpustack/model"},
        {"at the cache path", "/var/lib/gpustack/model-cache", false, "at /var/lib/gpustack/model-cache itself"},
        {"inside the cache path", "/var/lib/gpustack/model-cache/hub", false, "at \"/var/lib/gpustack/model-cache/hub\", inside /var/lib/gpustack/model-cache"},
        {"a lookalike sibling", "/var/lib/gpustack/model-other", false, ""},
        {"a lookalike prefix", "/var/lib/gpustack/models", false, ""},
        {"elsewhere", "/data", false, ""},
        {"an emptyDir at the cache path is a cache", "/var/lib/gpustack/model-cache", true, ""},
    };
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.name) {
            PodSpecView s = spec_at();
            s.has_volumes = true;
            VolumeView v = c.empty_dir ? empty_dir("other") : VolumeView{};
            v.name = "other";
            s.volumes = {v};
            ContainerView ctr = container("c");
            ctr.has_volume_mounts = true;
            ctr.volume_mounts = {mount("other", c.mount_path)};
            s.containers = {ctr};
            const Decision d = render_model_delivery(request(), opted_in({s}), config());
            if (std::string_view(c.says).empty()) {
                CHECK(d.allowed);
            } else {
                CHECK_FALSE(d.allowed);
                CHECK(d.rule_annotation() == "two-weight-sources");
                CHECK_THAT(d.message, Catch::Contains(std::string("container \"c\" (spec.containers[0]) mounts volume \"other\" ") + c.says));
            }
        }
    }
    SECTION("a container the annotation does not select may mount what it likes") {
        PodSpecView s = spec_at();
        s.has_volumes = true;
        VolumeView v;
        v.name = "other";
        s.volumes = {v};
        ContainerView side = container("side");
        side.has_volume_mounts = true;
        side.volume_mounts = {mount("other", "/var/lib/gpustack")};
        s.containers = {container("engine"), side};
        WorkloadView w = opted_in({s});
        w.has_model_containers = true;
        w.model_containers = "engine";
        CHECK(render_model_delivery(request(), w, config()).allowed);
    }
}
