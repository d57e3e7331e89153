"""Built-in presets: the CFR variants of the literature as named combinations of a regret rule,
an averaging scheme and an update order, registered like any plugin's presets."""

from __future__ import annotations

from .core.hookspecs import hookimpl

#: name -> the spec ``register(name, spec)`` takes; each description cites the variant's paper
PRESETS = {
    "cfr": {"rule": "rm", "averaging": "uniform", "update": "alternating",
            "description": "CFR (Zinkevich et al. 2007): regret matching, uniform average, alternating updates as "
                           "OpenSpiel and the published comparison tables run it (the 2007 paper's simultaneous "
                           "updates: [solver] update = \"simultaneous\")"},
    "cfr_plus": {"rule": "rm_plus", "averaging": "linear", "update": "alternating",
                 "description": "CFR+ (Tammelin 2014): regrets clipped at zero, linear average"},
    "lcfr": {"rule": "lcfr", "averaging": "linear", "update": "alternating",
             "description": "Linear CFR (Brown and Sandholm 2019): iteration t weighted by t"},
    "dcfr": {"rule": "dcfr", "averaging": "quadratic", "update": "alternating",
             "description": "Discounted CFR (Brown and Sandholm 2019), alpha 1.5, beta 0, gamma 2"},
    "pcfr_plus": {"rule": "pcfr_plus", "averaging": {"name": "power", "gamma": 2.0}, "update": "alternating",
                  "description": "Predictive CFR+ (Farina et al. 2021), average weighted by t^2"},
    "dcfr_plus": {"rule": "dcfr_plus", "averaging": {"name": "power", "gamma": 4.0}, "update": "alternating",
                  "description": "DCFR+ (Xu et al. 2024): discounted RM+, average weighted by t^4"},
    "pdcfr_plus": {"rule": "pdcfr_plus", "averaging": {"name": "power", "gamma": 5.0}, "update": "alternating",
                   "description": "PDCFR+ (Xu et al. 2024): predictive DCFR+, average weighted by t^5"},
    "hs_dcfr": {"rule": "hs_dcfr", "averaging": "scheduled_power", "update": "alternating",
                "description": "HS-DCFR (Zhang, McAleer and Sandholm 2024): DCFR with alpha 1 -> 4, beta -1 -> -3 "
                               "and gamma 30 -> 25 over the run's iterations (the paper runs 1,000)"},
    "hs_dcfr_plus": {"rule": "hs_dcfr_plus", "averaging": "scheduled_power", "update": "alternating",
                     "description": "HS on DCFR+: DCFR+ with HS-DCFR's alpha 1 -> 4 and the HS average, gamma "
                                    "30 -> 25 over the run's iterations"},
    "hs_pcfr_plus": {"rule": "pcfr_plus", "averaging": "scheduled_power", "update": "alternating",
                     "description": "HS-PCFR+(30) (Zhang, McAleer and Sandholm 2024): PCFR+ with the average decayed "
                                    "by ((t-1)/t)^gamma, gamma 30 -> 25 over the run's iterations"},
    "sapcfr_plus": {"rule": "sapcfr_plus", "averaging": {"name": "power", "gamma": 2.0}, "update": "alternating",
                    "description": "SAPCFR+ (Meng et al. 2025): PCFR+ playing [R + r/3]^+, average weighted by t^2"},
    "apcfr_plus": {"rule": "apcfr_plus", "averaging": {"name": "power", "gamma": 2.0}, "update": "alternating",
                   "description": "APCFR+ (Meng et al. 2025): PCFR+ playing [R + r/(1+alpha)]^+ with alpha learned per "
                                  "information set (the paper's Eq. (3), cap 5), average weighted by t^2"},
    "apdcfr_plus": {"rule": "apdcfr_plus", "averaging": {"name": "power", "gamma": 5.0}, "update": "alternating",
                    "description": "APDCFR+ (the asymmetry of Meng et al. 2025 on PDCFR+; not verified against the "
                                   "paper's Appendix C): play [d R + r/(1+alpha)]^+ with alpha learned per "
                                   "information set, average weighted by t^5"},
    "mmd": {"rule": "mmd", "averaging": "current", "update": "simultaneous",
            "description": "magnetic mirror descent (Sokota et al. 2023), eta 2, tau 0.01: the last iterate "
                           "converges to the regularised (quantal response) equilibrium"},
}


@hookimpl
def register_presets(register):
    for name, spec in PRESETS.items():
        register(name, spec)
