import ChildProcesses
import Foundation
import TestSupport
import Testing

/// The deployment files of `deploy/`: the Kubernetes manifests validate against the schemas of the Kubernetes versions
/// named here (`kubernetes-validate`, pinned in Tests/requirements.txt, offline: it bundles them), agree with each other,
/// and the systemd unit passes `systemd-analyze verify` where systemd-analyze runs.
@Suite struct DeploymentFilesTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let kubernetes = root.appendingPathComponent("deploy/kubernetes")
    static let unit = root.appendingPathComponent("deploy/systemd/chatter-bots@.service")
    /// The oldest Kubernetes version the manifests promise, and a recent one.
    static let kubernetesVersions = ["1.30.0", "1.35.0"]

    static var manifests: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: kubernetes.path)) ?? []
        return names.filter { $0.hasSuffix(".yaml") }.sorted().map { kubernetes.appendingPathComponent($0).path }
    }

    /// Runs `arguments`, both output streams merged; its exit code and output.
    func run(_ arguments: [String], in directory: String? = nil) async throws -> (Int32, String) {
        let child = try ChildProcess(arguments, workingDirectory: directory, standardError: .standardOutput)
        let output = try await child.allOutput(timeout: .hangGuard)
        guard let termination = await child.termination(timeout: .hangGuard) else {
            child.kill()
            throw DeadlineExceeded("\(arguments[0]) to exit", timeout: .hangGuard)
        }
        return (termination.status, String(decoding: output, as: UTF8.self))
    }

    func validate(_ files: [String], version: String) async throws -> (Int32, String) {
        let python = try TestPeer.python(importing: ["kubernetes_validate"])
        return try await run([python, "-m", "kubernetes_validate", "--strict", "--kubernetes-version", version] + files)
    }

    @Test(arguments: kubernetesVersions)
    func theKubernetesManifestsValidate(version: String) async throws {
        let files = Self.manifests
        #expect(files.map { URL(fileURLWithPath: $0).lastPathComponent } == [
            "configmap.yaml", "poddisruptionbudget.yaml", "secret.example.yaml", "service.yaml", "statefulset.yaml",
        ])
        let (code, output) = try await validate(files, version: version)
        #expect(code == 0, "\(output)")
        #expect(!output.contains("ERROR"), "\(output)")
    }

    @Test func aManifestWithAnUnknownFieldIsRefused() async throws {
        let directory = try TemporaryDirectory("DeploymentFilesTests")
        let broken = try String(contentsOf: Self.kubernetes.appendingPathComponent("service.yaml"), encoding: .utf8)
            .replacingOccurrences(of: "clusterIP: None", with: "clusterIP: None\n  publishNotReady: true")
        let file = try directory.write(broken, to: "service.yaml")
        let (code, output) = try await validate([file.path], version: Self.kubernetesVersions[1])
        #expect(code != 0)
        #expect(output.contains("publishNotReady"), "\(output)")
    }

    /// The StatefulSet's fields that must agree: shards with replicas, the grace with the shutdown timeout, probes
    /// and the Service with bots.json's port, as PyYAML (a dependency of kubernetes-validate) reads them.
    @Test func theStatefulSetRunsOneShardPerReplicaAndOutlastsItsShutdownTimeout() async throws {
        let python = try TestPeer.python(importing: ["yaml"])
        let script = """
            import json, sys, yaml
            spec = yaml.safe_load(open(sys.argv[1]))["spec"]
            config = json.loads(yaml.safe_load(open(sys.argv[2]))["data"]["bots.json"])
            service = yaml.safe_load(open(sys.argv[3]))["spec"]
            pod = spec["template"]["spec"]
            bots = pod["containers"][0]
            args = bots["args"]
            print(json.dumps({
                "replicas": spec["replicas"],
                "shardCount": int(args[args.index("--shard-count") + 1]),
                "fromHostname": "--shard-from-hostname" in args,
                "shutdownTimeout": int(args[args.index("--shutdown-timeout") + 1]),
                "grace": pod["terminationGracePeriodSeconds"],
                "liveness": bots["livenessProbe"]["httpGet"]["path"],
                "readiness": bots["readinessProbe"]["httpGet"]["path"],
                "scrape": spec["template"]["metadata"]["annotations"]["prometheus.io/scrape"],
                "ports": sorted({
                    config["httpPort"],
                    bots["ports"][0]["containerPort"],
                    int(spec["template"]["metadata"]["annotations"]["prometheus.io/port"]),
                    service["ports"][0]["targetPort"] if isinstance(service["ports"][0].get("targetPort"), int)
                        else service["ports"][0]["port"],
                }),
                "serviceTarget": str(service["ports"][0].get("targetPort", bots["ports"][0]["name"])),
                "probePorts": sorted({bots[probe]["httpGet"]["port"] for probe in ["livenessProbe", "readinessProbe", "startupProbe"]}),
                "portName": bots["ports"][0]["name"],
                "claims": [claim["metadata"]["name"] for claim in spec["volumeClaimTemplates"]],
                "token": [e["name"] for e in bots["env"] if "secretKeyRef" in e.get("valueFrom", {})],
            }))
            """
        let (code, output) = try await run([
            python, "-c", script, Self.kubernetes.appendingPathComponent("statefulset.yaml").path,
            Self.kubernetes.appendingPathComponent("configmap.yaml").path, Self.kubernetes.appendingPathComponent("service.yaml").path,
        ])
        #expect(code == 0, "\(output)")
        let fields = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
        #expect(fields["replicas"] as? Int == fields["shardCount"] as? Int)
        #expect(fields["fromHostname"] as? Bool == true)
        let grace = try #require(fields["grace"] as? Int)
        let timeout = try #require(fields["shutdownTimeout"] as? Int)
        #expect(grace > timeout + 5)
        #expect(fields["liveness"] as? String == "/livez")
        #expect(fields["readiness"] as? String == "/readyz")
        #expect(fields["scrape"] as? String == "true")
        // Every pod serves on bots.json's httpPort (a shard from the pod name keeps it): the container, the scrape
        // annotation and the Service name that port, and the probes the container's.
        #expect((fields["ports"] as? [Int])?.count == 1, "\(fields["ports"] ?? "")")
        #expect(fields["probePorts"] as? [String] == [fields["portName"] as? String ?? ""])
        let target = try #require(fields["serviceTarget"] as? String)
        #expect(target == fields["portName"] as? String || Int(target) == (fields["ports"] as? [Int])?.first,
                "the Service sends to the container's port (by its name or its number): \(target)")
        #expect(fields["claims"] as? [String] == ["data"])
        #expect(fields["token"] as? [String] == ["CHATTERBOTS_CONTROL_TOKEN"])
    }

    /// A reload reads `{"file": …}` values again but sees only the environment the pod started with: every secret of
    /// the shipped bots.json is a file of the passwords Secret, mounted as a directory (no subPath, so the kubelet
    /// updates it) under the name of one of the Secret's keys, and no environment variable comes from that Secret.
    @Test func everySecretOfTheShippedBotsIsAFileOfTheMountedPasswordsSecret() async throws {
        let python = try TestPeer.python(importing: ["yaml"])
        let script = """
            import json, posixpath, sys, yaml
            pod = yaml.safe_load(open(sys.argv[1]))["spec"]["template"]["spec"]
            config = json.loads(yaml.safe_load(open(sys.argv[2]))["data"]["bots.json"])
            secret = [d for d in yaml.safe_load_all(open(sys.argv[3])) if d["metadata"]["name"] == "chatter-bots-passwords"][0]
            bots = pod["containers"][0]
            volumes = [v["name"] for v in pod["volumes"] if v.get("secret", {}).get("secretName") == "chatter-bots-passwords"]
            mounts = [m for m in bots["volumeMounts"] if m["name"] in volumes]
            values = {"server.clientKey": config["server"]["clientKey"]}
            values.update({"bot " + b["name"] + " password": b["credentials"]["password"] for b in config["bots"]})
            def mounted(path):
                return [m for m in mounts if posixpath.dirname(path) == m["mountPath"].rstrip("/") and "subPath" not in m]
            print(json.dumps({
                "notFiles": sorted(k for k, v in values.items() if not (isinstance(v, dict) and list(v) == ["file"])),
                "notMounted": sorted(k for k, v in values.items() if isinstance(v, dict) and "file" in v and not mounted(v["file"])),
                "notKeys": sorted(k for k, v in values.items() if isinstance(v, dict) and "file" in v
                                  and posixpath.basename(v["file"]) not in secret["stringData"]),
                "bots": len(config["bots"]),
                "fromEnvironment": [e for e in bots.get("envFrom", []) if e.get("secretRef", {}).get("name") == "chatter-bots-passwords"]
                    + [e["name"] for e in bots.get("env", [])
                       if e.get("valueFrom", {}).get("secretKeyRef", {}).get("name") == "chatter-bots-passwords"],
            }))
            """
        let (code, output) = try await run([
            python, "-c", script, Self.kubernetes.appendingPathComponent("statefulset.yaml").path,
            Self.kubernetes.appendingPathComponent("configmap.yaml").path,
            Self.kubernetes.appendingPathComponent("secret.example.yaml").path,
        ])
        #expect(code == 0, "\(output)")
        let fields = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
        #expect((fields["bots"] as? Int ?? 0) > 0)
        #expect(fields["notFiles"] as? [String] == [], "given otherwise than as {\"file\": …}: \(output)")
        #expect(fields["notMounted"] as? [String] == [], "files outside the mounted Secret: \(output)")
        #expect(fields["notKeys"] as? [String] == [], "files the Secret has no key for: \(output)")
        #expect((fields["fromEnvironment"] as? [Any])?.isEmpty == true, "\(output)")
    }

    /// Whether `systemd-analyze verify` runs here: it is installed and verifies a plain unit without a complaint.
    static let systemdAnalyzeRuns: Bool = {
        guard let analyze = try? TestPeer.command("systemd-analyze", package: "systemd") else { return false }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("systemd-probe-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        guard (try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)) != nil,
            FileManager.default.createFile(
                atPath: directory.appendingPathComponent("probe.service").path,
                contents: Data("[Service]\nType=oneshot\nExecStart=/bin/sh -c true\n".utf8)),
            let child = try? ChildProcess(
                [analyze, "verify", "--man=no", directory.appendingPathComponent("probe.service").path],
                standardError: .standardOutput),
            let termination = child.terminationBlocking(timeout: .hangGuard)
        else { return false }
        return termination.status == 0
    }()

    @Test(.enabled(if: systemdAnalyzeRuns, "systemd-analyze is missing, or cannot verify a plain unit here (a container without systemd)"))
    func theSystemdUnitVerifiesWithoutAComplaint() async throws {
        let directory = try TemporaryDirectory("DeploymentFilesTests")
        // The unit names where the executable is installed; here it is the one just built.
        let unit = try String(contentsOf: Self.unit, encoding: .utf8)
            .replacingOccurrences(of: "/usr/local/bin/example-bots", with: try BotProcess.executable().path)
        #expect(unit.contains("--shard %i/${CHATTERBOTS_SHARD_COUNT}"))
        #expect(unit.contains("Restart=on-failure"))
        _ = try directory.write(unit, to: "chatter-bots@.service")
        let (code, output) = try await run([
            try TestPeer.command("systemd-analyze", package: "systemd"), "verify", "--man=no",
            directory.url.appendingPathComponent("chatter-bots@2.service").path,
        ])
        #expect(code == 0, "\(output)")
        #expect(output.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "\(output)")
    }
}
