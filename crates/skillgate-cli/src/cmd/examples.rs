//! The `Examples:` section of every command's `--help` (and man page), kept in one table so
//! that a command without examples is easy to spot (a unit test in `main.rs` requires one
//! for every command).

/// (command path, examples). The agent in every example is `skillgate serve`'s default
/// address.
pub const EXAMPLES: &[(&[&str], &str)] = &[
    (&["canonicalize"], "skillgate canonicalize card.json\n  cat doc.json | skillgate canonicalize -"),
    (&["digest"], "skillgate digest examples/interfaces/evaluate_resource_condition.json"),
    (&["interface", "check"], "skillgate interface check examples/interfaces/evaluate_resource_condition.json\n  skillgate interface check doc.json --skill-id evaluate_resource_condition --format json"),
    (&["interface", "compose"], "skillgate interface compose collect.json assess.json"),
    (&["interface", "new"], "skillgate interface new --skill-id echo --skill-version 1.0.0 --input in.json --output out.json > echo.json"),
    (&["interface", "validate"], "skillgate interface validate examples/interfaces/evaluate_resource_condition.json \\\n      --input examples/interfaces/evaluate_resource_condition.input.json"),
    (&["interface", "diff"], "skillgate interface diff v1.0.json v1.1.json\n  skillgate interface diff v1.0.json v2.0.json --format sarif > diff.sarif"),
    (&["interface", "fix"], "skillgate interface fix doc.json\n  skillgate interface fix --write doc.json"),
    (&["interface", "from-mcp"], "skillgate interface from-mcp --command \"python3 tools_server.py\" --out interfaces\n  skillgate interface from-mcp http://127.0.0.1:8000/mcp --out interfaces --tool lookup --skill-version 1.2 --format json"),
    (&["card", "sign"], "openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out key.pem\n  skillgate card sign card.json --key key.pem --kid key-1 > signed.json"),
    (&["card", "verify"], "skillgate card verify signed.json --jwks jwks.json\n  skillgate card verify http://127.0.0.1:7420 --jwks jwks.json --format json"),
    (&["card", "diff"], "skillgate card diff old-card.json new-card.json\n  skillgate card diff old-card.json new-card.json --interface v1.0.json --interface v2.0.json --format json"),
    (&["card", "lint"], "skillgate card lint card.json\n  skillgate card lint http://127.0.0.1:7420 --deep\n  skillgate card lint card.json --format sarif > lint.sarif"),
    (&["describe"], "skillgate describe http://127.0.0.1:7420 evaluate_resource_condition\n  skillgate describe http://127.0.0.1:7420 evaluate_resource_condition --document > doc.json"),
    (&["call"], "skillgate call http://127.0.0.1:7420 collect_interface_counters --args '{\"interface\":\"lo\"}'\n  skillgate call http://127.0.0.1:7420 collect_interface_counters --args @args.json --stream\n  skillgate call URL SKILL --args @args.json --format json | jq .output"),
    (&["chain"], "skillgate chain examples/chains/interface_health.json\n  skillgate chain plan.json --format json | jq .correlations"),
    (&["demo"], "skillgate demo"),
    (&["serve"], "skillgate serve\n  skillgate serve --config myagent/agent.toml --store memory\n  skillgate serve --listen 0.0.0.0:7420 --public-url https://agent.example --token-file token\n  skillgate serve --config myagent/agent.toml --mcp-listen 127.0.0.1:7430"),
    (&["gateway"], "skillgate gateway --upstream http://127.0.0.1:9999 --config gateway.toml\n  SKILLGATE_UPSTREAM_TOKEN=... skillgate gateway --upstream https://agent.internal --config gateway.toml --token-file tokens\n  skillgate gateway --config mcp-gateway.toml"),
    (&["init"], "skillgate init myagent && skillgate serve --config myagent/agent.toml"),
    (&["store", "migrate"], "skillgate store migrate --store postgres://postgres@127.0.0.1/skillgate"),
    (&["inspect"], "skillgate inspect http://127.0.0.1:7420\n  skillgate inspect https://agent.example --token-file token --listen 127.0.0.1:7430"),
    (&["mcp"], "skillgate mcp http://127.0.0.1:7420\n  skillgate mcp http://127.0.0.1:7420 --listen 127.0.0.1:7430\n  SKILLGATE_TOKEN=... skillgate mcp https://agent.example --trust-jwks jwks.json --timeout 60\n  # A desktop host starts it over stdio; its config (claude_desktop_config.json):\n  # {\"mcpServers\": {\"netops\": {\"command\": \"skillgate\",\n  #   \"args\": [\"mcp\", \"http://127.0.0.1:7420\"], \"env\": {\"SKILLGATE_TOKEN\": \"...\"}}}}"),
    (&["conformance"], "skillgate conformance http://127.0.0.1:7420\n  skillgate conformance http://127.0.0.1:7420 --binding http-json --format json | jq .summary"),
    (&["skills"], "skillgate skills http://127.0.0.1:7420\n  skillgate skills http://127.0.0.1:7420 --format json | jq -r '.skills[].id'"),
    (&["task", "get"], "skillgate task get http://127.0.0.1:7420 TASK_ID\n  skillgate task get http://127.0.0.1:7420 TASK_ID --format json | jq -r .task.status.state"),
    (&["task", "list"], "skillgate task list http://127.0.0.1:7420\n  skillgate task list http://127.0.0.1:7420 --state completed --page-size 10 --format json"),
    (&["task", "cancel"], "skillgate task cancel http://127.0.0.1:7420 TASK_ID"),
    (&["task", "subscribe"], "skillgate task subscribe http://127.0.0.1:7420 TASK_ID\n  skillgate task subscribe http://127.0.0.1:7420 TASK_ID --format json | jq -c ."),
    (&["send"], "skillgate send http://127.0.0.1:7420 --text 'hello'\n  skillgate send http://127.0.0.1:9999 --data '{\"query\":\"status\"}' --binding http-json"),
    (&["completions"], "skillgate completions bash > ~/.local/share/bash-completion/completions/skillgate\n  skillgate completions zsh > \"${fpath[1]}/_skillgate\""),
    (&["man"], "skillgate man > skillgate.1 && man ./skillgate.1"),
    (&["docs", "markdown"], "skillgate docs markdown > docs/cli.md"),
];

/// `cmd` with the `Examples:` section set on every command the table names.
pub fn apply(mut cmd: clap::Command) -> clap::Command {
    for (path, text) in EXAMPLES {
        cmd = set(cmd, path, text);
    }
    cmd
}

fn set(cmd: clap::Command, path: &[&str], text: &'static str) -> clap::Command {
    match path.split_first() {
        None => cmd.after_help(format!("Examples:\n  {text}")),
        Some((first, rest)) => {
            let rest = rest.to_vec();
            cmd.mut_subcommand(*first, move |sub| set(sub, &rest, text))
        }
    }
}
