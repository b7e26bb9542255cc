/// SQLite's schema migrations, `sql/NNNN_name.sql` in order, as SwiftPM builds them into the
/// binary (`.embedInCode` in Package.swift): an installed or copied `pushgate` needs no folder
/// of migrations beside it. Their PostgreSQL twins, with the same numbers and meaning, are
/// PostgreSQLMigrations'.
///
/// SwiftPM gives each embedded file a constant (`0001_initial.sql`'s is
/// `PackageResources._001_initial_sql`) but no list of them, hence the one below: a new
/// migration needs its line here as well as its file. A line without its file does not
/// compile; a file without its line fails BuiltInMigrationsTests. The two engines' migrations
/// are two targets because SwiftPM refuses two resources of one file name in a target.
public enum SQLiteMigrationFiles {
    public static let all: [(fileName: String, bytes: [UInt8])] = [
        ("0001_initial.sql", PackageResources._001_initial_sql),
        ("0002_outbox.sql", PackageResources._002_outbox_sql),
        ("0003_provider_tokens.sql", PackageResources._003_provider_tokens_sql),
        ("0004_beams_instances.sql", PackageResources._004_beams_instances_sql),
        ("0005_report_in_one_call.sql", PackageResources._005_report_in_one_call_sql),
        ("0006_status_app_checks.sql", PackageResources._006_status_app_checks_sql),
        ("0007_outbox_nodes.sql", PackageResources._007_outbox_nodes_sql),
        ("0008_reports_together.sql", PackageResources._008_reports_together_sql),
        ("0009_sender_key_scopes.sql", PackageResources._009_sender_key_scopes_sql),
        ("0010_housekeeping.sql", PackageResources._010_housekeeping_sql),
        ("0011_web_platform.sql", PackageResources._011_web_platform_sql),
        ("0012_beams_users.sql", PackageResources._012_beams_users_sql),
        ("0013_fanouts_in_steps.sql", PackageResources._013_fanouts_in_steps_sql),
        ("0014_reports_set_based.sql", PackageResources._014_reports_set_based_sql),
        ("0015_fanout_steps_pinned.sql", PackageResources._015_fanout_steps_pinned_sql),
        ("0016_device_outcomes.sql", PackageResources._016_device_outcomes_sql),
        ("0017_fanout_steps_claimed.sql", PackageResources._017_fanout_steps_claimed_sql),
        ("0018_checks_without_in_lists.sql", PackageResources._018_checks_without_in_lists_sql),
        ("0019_reports_to_the_day.sql", PackageResources._019_reports_to_the_day_sql),
        ("0020_operator_keys_send_nothing.sql", PackageResources._020_operator_keys_send_nothing_sql),
        ("0021_database_sizes.sql", PackageResources._021_database_sizes_sql),
        ("0022_matrix_apps.sql", PackageResources._022_matrix_apps_sql),
    ]
}
