"""The stakeholder simulator: holds requirements that are in no record and answers the developer."""
