//! The `oware` command: a thin shell over the library (see `oware --help`).

fn main() {
    std::process::exit(oware_zero::cli::main());
}
