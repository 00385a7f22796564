"""BibTeX entries of the papers behind the metrics, for the metric cards and `evaluate` modules."""

GCA = """\
@inproceedings{aksu-chen-2024-granular,
  title = {Granular Change Accuracy: A More Accurate Performance Metric for Dialogue State Tracking},
  author = {Aksu, Taha and Chen, Nancy F.},
  booktitle = {Proceedings of the 2024 Joint International Conference on Computational Linguistics,
               Language Resources and Evaluation (LREC-COLING 2024)},
  year = {2024},
  eprint = {2403.11123},
  archivePrefix = {arXiv}
}
"""

DSTC2 = """\
@inproceedings{henderson-etal-2014-second,
  title = {The Second Dialog State Tracking Challenge},
  author = {Henderson, Matthew and Thomson, Blaise and Williams, Jason D.},
  booktitle = {Proceedings of the 15th Annual Meeting of the Special Interest Group on Discourse and
               Dialogue (SIGDIAL)},
  pages = {263--272},
  year = {2014}
}
"""

FGA = """\
@inproceedings{dey-etal-2022-towards,
  title = {Towards Fair Evaluation of Dialogue State Tracking by Flexible Incorporation of Turn-level
           Performances},
  author = {Dey, Suvodip and Kummara, Ramamohan and Desarkar, Maunendra},
  booktitle = {Proceedings of the 60th Annual Meeting of the Association for Computational Linguistics
               (Volume 2: Short Papers)},
  pages = {318--324},
  year = {2022}
}
"""

RSA = """\
@inproceedings{kim-etal-2022-mismatch,
  title = {Mismatch between Multi-turn Dialogue and its Evaluation Metric in Dialogue State Tracking},
  author = {Kim, Takyoung and Yoon, Hoonsang and Lee, Yukyung and Kang, Pilsung and Kim, Misuk},
  booktitle = {Proceedings of the 60th Annual Meeting of the Association for Computational Linguistics
               (Volume 2: Short Papers)},
  pages = {297--309},
  year = {2022}
}
"""
