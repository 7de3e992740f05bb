"""Contains all the data models used in inputs/outputs"""

from .account import Account
from .account_accounttype import AccountAccounttype
from .activate import Activate
from .actor import Actor
from .allowlist import Allowlist
from .audit_entry import AuditEntry
from .audit_entry_details import AuditEntryDetails
from .audit_entry_target import AuditEntryTarget
from .audit_page import AuditPage
from .authorization_entry import AuthorizationEntry
from .authorization_list_entry import AuthorizationListEntry
from .authorization_signature import AuthorizationSignature
from .authorization_to_evaluate import AuthorizationToEvaluate
from .balance import Balance
from .batch import Batch
from .batch_call import BatchCall
from .cancel_request import CancelRequest
from .client_gas_tank import ClientGasTank
from .client_top_up import ClientTopUp
from .component import Component
from .contract_rule import ContractRule
from .create_account_request import CreateAccountRequest
from .create_account_request_pooltype import CreateAccountRequestPooltype
from .create_invoice_request import CreateInvoiceRequest
from .create_invoice_request_address_type_type_0 import (
    CreateInvoiceRequestAddressTypeType0,
)
from .create_smart_account import CreateSmartAccount
from .create_smart_account_accounttype import CreateSmartAccountAccounttype
from .create_wallet_request import CreateWalletRequest
from .create_withdrawal_request import CreateWithdrawalRequest
from .custody_account import CustodyAccount
from .custody_account_page import CustodyAccountPage
from .custody_account_pooltype import CustodyAccountPooltype
from .custody_balance import CustodyBalance
from .custody_balances import CustodyBalances
from .custody_token import CustodyToken
from .custody_token_list import CustodyTokenList
from .custody_wallet import CustodyWallet
from .delegate_request import DelegateRequest
from .delete_webhooks_settings_response_200 import DeleteWebhooksSettingsResponse200
from .deleted import Deleted
from .delivery import Delivery
from .delivery_attempt import DeliveryAttempt
from .delivery_page import DeliveryPage
from .delivery_status import DeliveryStatus
from .deposit import Deposit
from .deposit_credit import DepositCredit
from .deposit_invoice_outcome_type_0 import DepositInvoiceOutcomeType0
from .deposit_matchtype import DepositMatchtype
from .deposit_page import DepositPage
from .deposit_status import DepositStatus
from .deposit_transaction import DepositTransaction
from .eip_1559_replacement import Eip1559Replacement
from .eip_1559_replacement_reason import Eip1559ReplacementReason
from .embedded_usage import EmbeddedUsage
from .error_envelope import ErrorEnvelope
from .error_envelope_data import ErrorEnvelopeData
from .error_envelope_data_errors_item import ErrorEnvelopeDataErrorsItem
from .estimate import Estimate
from .evaluate_body import EvaluateBody
from .evaluate_body_encoding import EvaluateBodyEncoding
from .evaluate_body_typed_data_type_0 import EvaluateBodyTypedDataType0
from .evaluation import Evaluation
from .gas_tank import GasTank
from .gas_tank_settings import GasTankSettings
from .gas_tank_settings_state import GasTankSettingsState
from .gas_wallet import GasWallet
from .gas_wallet_balance import GasWalletBalance
from .gas_wallet_list import GasWalletList
from .gas_wallet_pooltype import GasWalletPooltype
from .get_audit_log_response_200 import GetAuditLogResponse200
from .get_auth_session_response_200 import GetAuthSessionResponse200
from .get_auth_whoami_response_200 import GetAuthWhoamiResponse200
from .get_client_gas_tank_policy_response_200 import GetClientGasTankPolicyResponse200
from .get_client_gas_tank_response_200 import GetClientGasTankResponse200
from .get_client_gas_tank_settings_response_200 import (
    GetClientGasTankSettingsResponse200,
)
from .get_client_gas_tank_top_up_history_response_200 import (
    GetClientGasTankTopUpHistoryResponse200,
)
from .get_custody_accounts_by_account_id_balances_response_200 import (
    GetCustodyAccountsByAccountIdBalancesResponse200,
)
from .get_custody_accounts_by_account_id_entries_response_200 import (
    GetCustodyAccountsByAccountIdEntriesResponse200,
)
from .get_custody_accounts_by_account_id_response_200 import (
    GetCustodyAccountsByAccountIdResponse200,
)
from .get_custody_accounts_response_200 import GetCustodyAccountsResponse200
from .get_custody_deposits_by_deposit_id_response_200 import (
    GetCustodyDepositsByDepositIdResponse200,
)
from .get_custody_deposits_response_200 import GetCustodyDepositsResponse200
from .get_custody_deposits_status_type_0 import GetCustodyDepositsStatusType0
from .get_custody_gas_wallets_response_200 import GetCustodyGasWalletsResponse200
from .get_custody_invoices_by_invoice_id_response_200 import (
    GetCustodyInvoicesByInvoiceIdResponse200,
)
from .get_custody_invoices_response_200 import GetCustodyInvoicesResponse200
from .get_custody_invoices_status_type_0 import GetCustodyInvoicesStatusType0
from .get_custody_networks_by_network_watcher_response_200 import (
    GetCustodyNetworksByNetworkWatcherResponse200,
)
from .get_custody_tokens_response_200 import GetCustodyTokensResponse200
from .get_custody_withdrawal_allowlist_response_200 import (
    GetCustodyWithdrawalAllowlistResponse200,
)
from .get_custody_withdrawals_by_withdrawal_id_response_200 import (
    GetCustodyWithdrawalsByWithdrawalIdResponse200,
)
from .get_custody_withdrawals_response_200 import GetCustodyWithdrawalsResponse200
from .get_custody_withdrawals_status_type_0 import GetCustodyWithdrawalsStatusType0
from .get_gas_tank_organization_usage_history_response_200 import (
    GetGasTankOrganizationUsageHistoryResponse200,
)
from .get_health_details_response_200 import GetHealthDetailsResponse200
from .get_health_response_200 import GetHealthResponse200
from .get_jwks_response_200 import GetJwksResponse200
from .get_jwks_response_200_keys_item import GetJwksResponse200KeysItem
from .get_networks_response_200 import GetNetworksResponse200
from .get_policies_response_200 import GetPoliciesResponse200
from .get_smart_account_by_owner_id_gas_tank_settings_response_200 import (
    GetSmartAccountByOwnerIdGasTankSettingsResponse200,
)
from .get_smart_account_by_owner_id_response_200 import (
    GetSmartAccountByOwnerIdResponse200,
)
from .get_smart_account_by_owner_id_top_up_history_response_200 import (
    GetSmartAccountByOwnerIdTopUpHistoryResponse200,
)
from .get_smart_account_by_owner_id_usage_history_response_200 import (
    GetSmartAccountByOwnerIdUsageHistoryResponse200,
)
from .get_user_op_by_id_response_200 import GetUserOpByIdResponse200
from .get_user_op_owner_by_owner_id_response_200 import (
    GetUserOpOwnerByOwnerIdResponse200,
)
from .get_user_op_response_200 import GetUserOpResponse200
from .get_wallet_signatures_response_200 import GetWalletSignaturesResponse200
from .get_wallet_transactions_by_hash_response_200 import (
    GetWalletTransactionsByHashResponse200,
)
from .get_wallet_transactions_response_200 import GetWalletTransactionsResponse200
from .get_webhooks_deliveries_response_200 import GetWebhooksDeliveriesResponse200
from .get_webhooks_public_key_response_200 import GetWebhooksPublicKeyResponse200
from .get_webhooks_settings_response_200 import GetWebhooksSettingsResponse200
from .hash_result import HashResult
from .hash_result_typed_data_type_0 import HashResultTypedDataType0
from .health import Health
from .health_details import HealthDetails
from .import_wallet_request import ImportWalletRequest
from .invoice import Invoice
from .invoice_page import InvoicePage
from .invoice_status import InvoiceStatus
from .journal_entry import JournalEntry
from .journal_entry_kind import JournalEntryKind
from .journal_entry_page import JournalEntryPage
from .key_rotated import KeyRotated
from .key_rotation_body import KeyRotationBody
from .legacy_replacement import LegacyReplacement
from .legacy_replacement_reason import LegacyReplacementReason
from .login_request import LoginRequest
from .message_signature import MessageSignature
from .network_info import NetworkInfo
from .network_list import NetworkList
from .operation_caps import OperationCaps
from .owner_caps import OwnerCaps
from .owner_record import OwnerRecord
from .owner_ref import OwnerRef
from .owner_remaining import OwnerRemaining
from .owner_top_up import OwnerTopUp
from .pagination import Pagination
from .policy_body import PolicyBody
from .policy_body_policy import PolicyBodyPolicy
from .policy_set import PolicySet
from .policy_view import PolicyView
from .policy_view_policy_type_0 import PolicyViewPolicyType0
from .post_account_create_response_200 import PostAccountCreateResponse200
from .post_account_import_response_200 import PostAccountImportResponse200
from .post_account_recover_response_200 import PostAccountRecoverResponse200
from .post_auth_login_response_200 import PostAuthLoginResponse200
from .post_auth_refresh_response_200 import PostAuthRefreshResponse200
from .post_client_gas_tank_top_up_response_200 import PostClientGasTankTopUpResponse200
from .post_custody_accounts_response_200 import PostCustodyAccountsResponse200
from .post_custody_invoices_response_200 import PostCustodyInvoicesResponse200
from .post_custody_withdrawals_response_200 import PostCustodyWithdrawalsResponse200
from .post_policies_evaluate_response_200 import PostPoliciesEvaluateResponse200
from .post_smart_account_response_200 import PostSmartAccountResponse200
from .post_smart_account_top_up_response_200 import PostSmartAccountTopUpResponse200
from .post_user_op_activate_hash_response_200 import PostUserOpActivateHashResponse200
from .post_user_op_batch_estimate_response_200 import PostUserOpBatchEstimateResponse200
from .post_user_op_batch_hash_response_200 import PostUserOpBatchHashResponse200
from .post_user_op_send_coin_estimate_response_200 import (
    PostUserOpSendCoinEstimateResponse200,
)
from .post_user_op_send_coin_hash_response_200 import PostUserOpSendCoinHashResponse200
from .post_user_op_send_erc_721_estimate_response_200 import (
    PostUserOpSendErc721EstimateResponse200,
)
from .post_user_op_send_erc_721_hash_response_200 import (
    PostUserOpSendErc721HashResponse200,
)
from .post_user_op_send_erc_1155_estimate_response_200 import (
    PostUserOpSendErc1155EstimateResponse200,
)
from .post_user_op_send_erc_1155_hash_response_200 import (
    PostUserOpSendErc1155HashResponse200,
)
from .post_user_op_send_token_estimate_response_200 import (
    PostUserOpSendTokenEstimateResponse200,
)
from .post_user_op_send_token_hash_response_200 import (
    PostUserOpSendTokenHashResponse200,
)
from .post_user_op_sign_transaction_estimate_response_200 import (
    PostUserOpSignTransactionEstimateResponse200,
)
from .post_user_op_sign_transaction_hash_response_200 import (
    PostUserOpSignTransactionHashResponse200,
)
from .post_user_op_sponsorship_check_response_200 import (
    PostUserOpSponsorshipCheckResponse200,
)
from .post_user_op_submit_response_200 import PostUserOpSubmitResponse200
from .post_wallet_balance_coin_response_200 import PostWalletBalanceCoinResponse200
from .post_wallet_balance_token_response_200 import PostWalletBalanceTokenResponse200
from .post_wallet_delegate_response_200 import PostWalletDelegateResponse200
from .post_wallet_send_coin_response_200 import PostWalletSendCoinResponse200
from .post_wallet_send_token_response_200 import PostWalletSendTokenResponse200
from .post_wallet_send_transaction_response_200 import (
    PostWalletSendTransactionResponse200,
)
from .post_wallet_sign_authorization_response_200 import (
    PostWalletSignAuthorizationResponse200,
)
from .post_wallet_sign_message_response_200 import PostWalletSignMessageResponse200
from .post_wallet_sign_typed_data_response_200 import PostWalletSignTypedDataResponse200
from .post_wallet_transactions_by_hash_cancel_response_200 import (
    PostWalletTransactionsByHashCancelResponse200,
)
from .post_wallet_transactions_by_hash_speed_up_response_200 import (
    PostWalletTransactionsByHashSpeedUpResponse200,
)
from .post_wallet_transfer_erc_721_response_200 import (
    PostWalletTransferErc721Response200,
)
from .post_webhooks_deliveries_by_id_retry_response_200 import (
    PostWebhooksDeliveriesByIdRetryResponse200,
)
from .post_webhooks_test_response_200 import PostWebhooksTestResponse200
from .previous_key import PreviousKey
from .public_key import PublicKey
from .put_client_gas_tank_policy_response_200 import PutClientGasTankPolicyResponse200
from .put_client_gas_tank_settings_response_200 import (
    PutClientGasTankSettingsResponse200,
)
from .put_policies_key_response_200 import PutPoliciesKeyResponse200
from .put_policies_response_200 import PutPoliciesResponse200
from .put_smart_account_by_owner_id_gas_tank_settings_response_200 import (
    PutSmartAccountByOwnerIdGasTankSettingsResponse200,
)
from .put_webhooks_settings_response_200 import PutWebhooksSettingsResponse200
from .raw_transaction import RawTransaction
from .recover_wallet_request import RecoverWalletRequest
from .refresh_request import RefreshRequest
from .send_coin import SendCoin
from .send_coin_request import SendCoinRequest
from .send_erc_721 import SendErc721
from .send_erc_1155 import SendErc1155
from .send_result import SendResult
from .send_token import SendToken
from .send_token_request import SendTokenRequest
from .send_transaction_request import SendTransactionRequest
from .session_info import SessionInfo
from .session_info_tokentype import SessionInfoTokentype
from .sign_authorization_request import SignAuthorizationRequest
from .sign_message_request import SignMessageRequest
from .sign_message_request_encoding import SignMessageRequestEncoding
from .sign_transaction import SignTransaction
from .sign_typed_data_request import SignTypedDataRequest
from .sign_typed_data_request_typeddata import SignTypedDataRequestTypeddata
from .signature_page import SignaturePage
from .signature_view import SignatureView
from .signature_view_kind import SignatureViewKind
from .speed_up_request import SpeedUpRequest
from .sponsorship_check import SponsorshipCheck
from .sponsorship_check_request import SponsorshipCheckRequest
from .sponsorship_policy import SponsorshipPolicy
from .sponsorship_policy_state import SponsorshipPolicyState
from .sponsorship_remaining import SponsorshipRemaining
from .submit import Submit
from .test_event_queued import TestEventQueued
from .token_balance_request import TokenBalanceRequest
from .token_pair import TokenPair
from .top_up_page import TopUpPage
from .top_up_record import TopUpRecord
from .top_up_record_status import TopUpRecordStatus
from .total_caps import TotalCaps
from .total_remaining import TotalRemaining
from .transaction_page import TransactionPage
from .transaction_to_evaluate import TransactionToEvaluate
from .transaction_view import TransactionView
from .transfer_erc_721_request import TransferErc721Request
from .tx_receipt import TxReceipt
from .tx_signature import TxSignature
from .typed_data_signature import TypedDataSignature
from .usage_page import UsagePage
from .usage_record import UsageRecord
from .usdt_info import UsdtInfo
from .user_operation import UserOperation
from .user_operation_page import UserOperationPage
from .user_operation_payer_type_0 import UserOperationPayerType0
from .user_operation_status import UserOperationStatus
from .wallet_created import WalletCreated
from .wallet_request import WalletRequest
from .watcher_status import WatcherStatus
from .webhook_event import WebhookEvent
from .webhook_event_data import WebhookEventData
from .webhook_settings import WebhookSettings
from .webhook_settings_request import WebhookSettingsRequest
from .who_am_i import WhoAmI
from .withdrawal import Withdrawal
from .withdrawal_page import WithdrawalPage
from .withdrawal_status import WithdrawalStatus

__all__ = (
    "Account",
    "AccountAccounttype",
    "Activate",
    "Actor",
    "Allowlist",
    "AuditEntry",
    "AuditEntryDetails",
    "AuditEntryTarget",
    "AuditPage",
    "AuthorizationEntry",
    "AuthorizationListEntry",
    "AuthorizationSignature",
    "AuthorizationToEvaluate",
    "Balance",
    "Batch",
    "BatchCall",
    "CancelRequest",
    "ClientGasTank",
    "ClientTopUp",
    "Component",
    "ContractRule",
    "CreateAccountRequest",
    "CreateAccountRequestPooltype",
    "CreateInvoiceRequest",
    "CreateInvoiceRequestAddressTypeType0",
    "CreateSmartAccount",
    "CreateSmartAccountAccounttype",
    "CreateWalletRequest",
    "CreateWithdrawalRequest",
    "CustodyAccount",
    "CustodyAccountPage",
    "CustodyAccountPooltype",
    "CustodyBalance",
    "CustodyBalances",
    "CustodyToken",
    "CustodyTokenList",
    "CustodyWallet",
    "DelegateRequest",
    "DeleteWebhooksSettingsResponse200",
    "Deleted",
    "Delivery",
    "DeliveryAttempt",
    "DeliveryPage",
    "DeliveryStatus",
    "Deposit",
    "DepositCredit",
    "DepositInvoiceOutcomeType0",
    "DepositMatchtype",
    "DepositPage",
    "DepositStatus",
    "DepositTransaction",
    "Eip1559Replacement",
    "Eip1559ReplacementReason",
    "EmbeddedUsage",
    "ErrorEnvelope",
    "ErrorEnvelopeData",
    "ErrorEnvelopeDataErrorsItem",
    "Estimate",
    "EvaluateBody",
    "EvaluateBodyEncoding",
    "EvaluateBodyTypedDataType0",
    "Evaluation",
    "GasTank",
    "GasTankSettings",
    "GasTankSettingsState",
    "GasWallet",
    "GasWalletBalance",
    "GasWalletList",
    "GasWalletPooltype",
    "GetAuditLogResponse200",
    "GetAuthSessionResponse200",
    "GetAuthWhoamiResponse200",
    "GetClientGasTankPolicyResponse200",
    "GetClientGasTankResponse200",
    "GetClientGasTankSettingsResponse200",
    "GetClientGasTankTopUpHistoryResponse200",
    "GetCustodyAccountsByAccountIdBalancesResponse200",
    "GetCustodyAccountsByAccountIdEntriesResponse200",
    "GetCustodyAccountsByAccountIdResponse200",
    "GetCustodyAccountsResponse200",
    "GetCustodyDepositsByDepositIdResponse200",
    "GetCustodyDepositsResponse200",
    "GetCustodyDepositsStatusType0",
    "GetCustodyGasWalletsResponse200",
    "GetCustodyInvoicesByInvoiceIdResponse200",
    "GetCustodyInvoicesResponse200",
    "GetCustodyInvoicesStatusType0",
    "GetCustodyNetworksByNetworkWatcherResponse200",
    "GetCustodyTokensResponse200",
    "GetCustodyWithdrawalAllowlistResponse200",
    "GetCustodyWithdrawalsByWithdrawalIdResponse200",
    "GetCustodyWithdrawalsResponse200",
    "GetCustodyWithdrawalsStatusType0",
    "GetGasTankOrganizationUsageHistoryResponse200",
    "GetHealthDetailsResponse200",
    "GetHealthResponse200",
    "GetJwksResponse200",
    "GetJwksResponse200KeysItem",
    "GetNetworksResponse200",
    "GetPoliciesResponse200",
    "GetSmartAccountByOwnerIdGasTankSettingsResponse200",
    "GetSmartAccountByOwnerIdResponse200",
    "GetSmartAccountByOwnerIdTopUpHistoryResponse200",
    "GetSmartAccountByOwnerIdUsageHistoryResponse200",
    "GetUserOpByIdResponse200",
    "GetUserOpOwnerByOwnerIdResponse200",
    "GetUserOpResponse200",
    "GetWalletSignaturesResponse200",
    "GetWalletTransactionsByHashResponse200",
    "GetWalletTransactionsResponse200",
    "GetWebhooksDeliveriesResponse200",
    "GetWebhooksPublicKeyResponse200",
    "GetWebhooksSettingsResponse200",
    "HashResult",
    "HashResultTypedDataType0",
    "Health",
    "HealthDetails",
    "ImportWalletRequest",
    "Invoice",
    "InvoicePage",
    "InvoiceStatus",
    "JournalEntry",
    "JournalEntryKind",
    "JournalEntryPage",
    "KeyRotated",
    "KeyRotationBody",
    "LegacyReplacement",
    "LegacyReplacementReason",
    "LoginRequest",
    "MessageSignature",
    "NetworkInfo",
    "NetworkList",
    "OperationCaps",
    "OwnerCaps",
    "OwnerRecord",
    "OwnerRef",
    "OwnerRemaining",
    "OwnerTopUp",
    "Pagination",
    "PolicyBody",
    "PolicyBodyPolicy",
    "PolicySet",
    "PolicyView",
    "PolicyViewPolicyType0",
    "PostAccountCreateResponse200",
    "PostAccountImportResponse200",
    "PostAccountRecoverResponse200",
    "PostAuthLoginResponse200",
    "PostAuthRefreshResponse200",
    "PostClientGasTankTopUpResponse200",
    "PostCustodyAccountsResponse200",
    "PostCustodyInvoicesResponse200",
    "PostCustodyWithdrawalsResponse200",
    "PostPoliciesEvaluateResponse200",
    "PostSmartAccountResponse200",
    "PostSmartAccountTopUpResponse200",
    "PostUserOpActivateHashResponse200",
    "PostUserOpBatchEstimateResponse200",
    "PostUserOpBatchHashResponse200",
    "PostUserOpSendCoinEstimateResponse200",
    "PostUserOpSendCoinHashResponse200",
    "PostUserOpSendErc721EstimateResponse200",
    "PostUserOpSendErc721HashResponse200",
    "PostUserOpSendErc1155EstimateResponse200",
    "PostUserOpSendErc1155HashResponse200",
    "PostUserOpSendTokenEstimateResponse200",
    "PostUserOpSendTokenHashResponse200",
    "PostUserOpSignTransactionEstimateResponse200",
    "PostUserOpSignTransactionHashResponse200",
    "PostUserOpSponsorshipCheckResponse200",
    "PostUserOpSubmitResponse200",
    "PostWalletBalanceCoinResponse200",
    "PostWalletBalanceTokenResponse200",
    "PostWalletDelegateResponse200",
    "PostWalletSendCoinResponse200",
    "PostWalletSendTokenResponse200",
    "PostWalletSendTransactionResponse200",
    "PostWalletSignAuthorizationResponse200",
    "PostWalletSignMessageResponse200",
    "PostWalletSignTypedDataResponse200",
    "PostWalletTransactionsByHashCancelResponse200",
    "PostWalletTransactionsByHashSpeedUpResponse200",
    "PostWalletTransferErc721Response200",
    "PostWebhooksDeliveriesByIdRetryResponse200",
    "PostWebhooksTestResponse200",
    "PreviousKey",
    "PublicKey",
    "PutClientGasTankPolicyResponse200",
    "PutClientGasTankSettingsResponse200",
    "PutPoliciesKeyResponse200",
    "PutPoliciesResponse200",
    "PutSmartAccountByOwnerIdGasTankSettingsResponse200",
    "PutWebhooksSettingsResponse200",
    "RawTransaction",
    "RecoverWalletRequest",
    "RefreshRequest",
    "SendCoin",
    "SendCoinRequest",
    "SendErc721",
    "SendErc1155",
    "SendResult",
    "SendToken",
    "SendTokenRequest",
    "SendTransactionRequest",
    "SessionInfo",
    "SessionInfoTokentype",
    "SignAuthorizationRequest",
    "SignMessageRequest",
    "SignMessageRequestEncoding",
    "SignTransaction",
    "SignTypedDataRequest",
    "SignTypedDataRequestTypeddata",
    "SignaturePage",
    "SignatureView",
    "SignatureViewKind",
    "SpeedUpRequest",
    "SponsorshipCheck",
    "SponsorshipCheckRequest",
    "SponsorshipPolicy",
    "SponsorshipPolicyState",
    "SponsorshipRemaining",
    "Submit",
    "TestEventQueued",
    "TokenBalanceRequest",
    "TokenPair",
    "TopUpPage",
    "TopUpRecord",
    "TopUpRecordStatus",
    "TotalCaps",
    "TotalRemaining",
    "TransactionPage",
    "TransactionToEvaluate",
    "TransactionView",
    "TransferErc721Request",
    "TxReceipt",
    "TxSignature",
    "TypedDataSignature",
    "UsagePage",
    "UsageRecord",
    "UsdtInfo",
    "UserOperation",
    "UserOperationPage",
    "UserOperationPayerType0",
    "UserOperationStatus",
    "WalletCreated",
    "WalletRequest",
    "WatcherStatus",
    "WebhookEvent",
    "WebhookEventData",
    "WebhookSettings",
    "WebhookSettingsRequest",
    "WhoAmI",
    "Withdrawal",
    "WithdrawalPage",
    "WithdrawalStatus",
)
